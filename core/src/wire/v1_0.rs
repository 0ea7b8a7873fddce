//! A2A v1.0 wire types.
