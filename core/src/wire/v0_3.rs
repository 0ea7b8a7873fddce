//! A2A v0.3 wire types.
