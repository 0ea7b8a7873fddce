//! Push configurations in memory, for a host whose tasks live in memory too.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use super::store::{ConfigWriteError, MAX_CONFIGS_PER_TASK, Mark, PushConfigStore, StoredConfig};
use crate::tasks::{DEFAULT_IN_MEMORY_CAPACITY, StoreError};

/// Push configurations in memory, for as many tasks as the in-memory task store keeps: past
/// that, the configurations of the task that got its first one longest ago are dropped
/// (the task store has dropped that task by then, or soon will).
///
/// ```
/// use a2a_lambda_server::push::InMemoryPushConfigs;
/// let configs = InMemoryPushConfigs::new();
/// # let _ = configs;
/// ```
#[derive(Debug)]
pub struct InMemoryPushConfigs {
    capacity: usize,
    tasks: Mutex<Tasks>,
}

#[derive(Debug, Default)]
struct Tasks {
    configs: HashMap<String, Vec<StoredConfig>>,
    /// Task ids in the order they got their first configuration.
    order: VecDeque<String>,
}

impl Default for InMemoryPushConfigs {
    fn default() -> Self {
        Self::new()
    }
}

impl InMemoryPushConfigs {
    /// A store for the configurations of [`DEFAULT_IN_MEMORY_CAPACITY`] tasks.
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_IN_MEMORY_CAPACITY)
    }

    /// A store for the configurations of at most `tasks` tasks (at least one).
    pub fn with_capacity(tasks: usize) -> Self {
        Self {
            capacity: tasks.max(1),
            tasks: Mutex::new(Tasks::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Tasks> {
        // A panic elsewhere cannot leave the maps half-written: every change below is
        // one insert or remove.
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait::async_trait]
impl PushConfigStore for InMemoryPushConfigs {
    async fn configs(&self, task_id: &str) -> Result<Vec<StoredConfig>, StoreError> {
        Ok(self
            .lock()
            .configs
            .get(task_id)
            .cloned()
            .unwrap_or_default())
    }

    async fn put_config(
        &self,
        task_id: &str,
        config: StoredConfig,
    ) -> Result<(), ConfigWriteError> {
        let mut tasks = self.lock();
        let Tasks { configs, order } = &mut *tasks;
        if let Some(held) = configs.get_mut(task_id) {
            if let Some(known) = held.iter_mut().find(|known| known.id() == config.id()) {
                *known = config;
                return Ok(());
            }
            if held.len() >= MAX_CONFIGS_PER_TASK {
                return Err(ConfigWriteError::Full(task_id.to_owned()));
            }
            held.push(config);
            return Ok(());
        }
        while order.len() >= self.capacity {
            match order.pop_front() {
                Some(oldest) => {
                    configs.remove(&oldest);
                }
                None => break,
            }
        }
        configs.insert(task_id.to_owned(), vec![config]);
        order.push_back(task_id.to_owned());
        Ok(())
    }

    async fn delete_config(&self, task_id: &str, config_id: &str) -> Result<bool, StoreError> {
        let mut tasks = self.lock();
        let Some(held) = tasks.configs.get_mut(task_id) else {
            return Ok(false);
        };
        let before = held.len();
        held.retain(|known| known.id() != config_id);
        Ok(held.len() < before)
    }

    async fn mark(&self, task_id: &str, config_id: &str, mark: &Mark) -> Result<(), StoreError> {
        let mut tasks = self.lock();
        if let Some(known) = tasks
            .configs
            .get_mut(task_id)
            .and_then(|held| held.iter_mut().find(|known| known.id() == config_id))
            && known
                .mark
                .as_ref()
                .is_none_or(|held| held.version < mark.version)
        {
            known.mark = Some(mark.clone());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_lambda_core::model::PushNotificationConfig;
    use a2a_lambda_core::version::ProtocolVersion;

    fn config(id: &str) -> StoredConfig {
        StoredConfig {
            config: PushNotificationConfig {
                id: Some(id.to_owned()),
                url: format!("https://hooks.example.com/{id}"),
                token: None,
                authentication: None,
            },
            version: ProtocolVersion::V1_0,
            mark: None,
        }
    }

    fn ids(configs: &[StoredConfig]) -> Vec<&str> {
        configs.iter().map(StoredConfig::id).collect()
    }

    #[tokio::test]
    async fn configs_keep_their_order_and_a_replace_keeps_its_place() {
        let store = InMemoryPushConfigs::new();
        for id in ["a", "b", "c"] {
            store.put_config("t", config(id)).await.unwrap();
        }
        let mut replaced = config("a");
        replaced.config.url = "https://other.example.com/".into();
        store.put_config("t", replaced).await.unwrap();
        let held = store.configs("t").await.unwrap();
        assert_eq!(ids(&held), ["a", "b", "c"]);
        assert_eq!(held[0].config.url, "https://other.example.com/");
        assert!(store.configs("other").await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_task_holds_a_bounded_number_and_a_delete_is_idempotent() {
        let store = InMemoryPushConfigs::new();
        for n in 0..MAX_CONFIGS_PER_TASK {
            store.put_config("t", config(&n.to_string())).await.unwrap();
        }
        assert!(matches!(
            store.put_config("t", config("one-more")).await,
            Err(ConfigWriteError::Full(task)) if task == "t"
        ));
        assert!(store.delete_config("t", "0").await.unwrap());
        assert!(!store.delete_config("t", "0").await.unwrap());
        assert!(!store.delete_config("nothing", "0").await.unwrap());
        store.put_config("t", config("one-more")).await.unwrap();
    }

    #[tokio::test]
    async fn the_oldest_tasks_configs_go_first_past_the_capacity() {
        let store = InMemoryPushConfigs::with_capacity(2);
        for task in ["t1", "t2", "t3"] {
            store.put_config(task, config("a")).await.unwrap();
        }
        assert!(store.configs("t1").await.unwrap().is_empty());
        assert_eq!(store.configs("t3").await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_mark_only_moves_forward() {
        let store = InMemoryPushConfigs::new();
        store.put_config("t", config("a")).await.unwrap();
        let at = |version: u64| Mark {
            version,
            status_at: format!("v{version}"),
        };
        store.mark("t", "a", &at(3)).await.unwrap();
        store.mark("t", "a", &at(2)).await.unwrap();
        store.mark("t", "gone", &at(9)).await.unwrap();
        assert_eq!(store.configs("t").await.unwrap()[0].mark, Some(at(3)));
    }
}
