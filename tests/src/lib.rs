//! Helpers for the workspace-level tests that run the real binaries.
