//! Which session holds a task, for in-process containers: every session's task store, by
//! session id, asked only when a call's answer says a task was not found (so that the log
//! can say where the task lives). Nothing is recorded per request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use a2a_lambda_server::tasks::{InMemoryTaskStore, TaskStore as _};

/// The task stores of the in-process sessions.
#[derive(Debug, Default)]
pub struct TaskOwners {
    /// A store is kept while its session's container lives.
    stores: Mutex<HashMap<String, Weak<InMemoryTaskStore>>>,
}

/// One session's place in [`TaskOwners`]: what its container keeps.
#[derive(Debug, Clone)]
pub struct SessionTasks {
    /// Every session's stores.
    pub owners: Arc<TaskOwners>,
    /// This session's id.
    pub session: Arc<str>,
}

impl TaskOwners {
    /// Records `store` as session `session`'s (and forgets sessions whose store is gone).
    pub fn register(
        self: &Arc<Self>,
        session: &str,
        store: &Arc<InMemoryTaskStore>,
    ) -> SessionTasks {
        let mut stores = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
        stores.retain(|_, store| store.strong_count() > 0);
        stores.insert(session.to_owned(), Arc::downgrade(store));
        SessionTasks {
            owners: Arc::clone(self),
            session: Arc::from(session),
        }
    }

    /// The session, other than `except`, whose store holds task `task_id`.
    pub async fn owner_of(&self, task_id: &str, except: &str) -> Option<String> {
        let live: Vec<(String, Arc<InMemoryTaskStore>)> = {
            let stores = self.stores.lock().unwrap_or_else(PoisonError::into_inner);
            stores
                .iter()
                .filter(|(session, _)| session.as_str() != except)
                .filter_map(|(session, store)| Some((session.clone(), store.upgrade()?)))
                .collect()
        };
        for (session, store) in live {
            if matches!(store.get(task_id).await, Ok(Some(_))) {
                return Some(session);
            }
        }
        None
    }
}
