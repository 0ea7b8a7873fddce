//! A scratch directory of the test process, removed on drop.

use std::path::PathBuf;

/// `a2a-test-{label}-{pid}` in the system's temporary directory, made empty when created
/// and removed when dropped.
#[derive(Debug)]
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// Makes the directory (emptying what a previous run left).
    ///
    /// # Panics
    /// When it cannot be made.
    pub fn new(label: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("a2a-test-{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
