//! The agent card.
