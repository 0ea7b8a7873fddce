//! `Role` and `TaskState`: written as their ProtoJSON names, read from the name or from
//! the enum number (ProtoJSON parsers accept both).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};

use crate::model;

/// Who sent a message: `ROLE_USER` (1) or `ROLE_AGENT` (2).
///
/// `ROLE_UNSPECIFIED` (0) is refused: a message must say who sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// `ROLE_USER`: the client.
    User,
    /// `ROLE_AGENT`: the agent.
    Agent,
}

impl Role {
    /// The ProtoJSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "ROLE_USER",
            Self::Agent => "ROLE_AGENT",
        }
    }
}

impl Serialize for Role {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RoleVisitor)
    }
}

const ROLE_EXPECTED: &str = "role must be ROLE_USER or ROLE_AGENT";

struct RoleVisitor;

impl Visitor<'_> for RoleVisitor {
    type Value = Role;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ROLE_USER or ROLE_AGENT")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Role, E> {
        match value {
            "ROLE_USER" => Ok(Role::User),
            "ROLE_AGENT" => Ok(Role::Agent),
            "ROLE_UNSPECIFIED" => Err(E::custom(format!("{ROLE_EXPECTED}, got ROLE_UNSPECIFIED"))),
            "user" | "agent" => Err(E::custom(format!(
                "{ROLE_EXPECTED}, got {value:?} (the v0.3 spelling)"
            ))),
            other => Err(E::custom(format!("{ROLE_EXPECTED}, got {other:?}"))),
        }
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Role, E> {
        match value {
            1 => Ok(Role::User),
            2 => Ok(Role::Agent),
            0 => Err(E::custom(format!(
                "{ROLE_EXPECTED}, got 0 (ROLE_UNSPECIFIED)"
            ))),
            other => Err(E::custom(format!("{ROLE_EXPECTED}, got {other}"))),
        }
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Role, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => Err(E::custom(format!("{ROLE_EXPECTED}, got {value}"))),
        }
    }
}

impl From<Role> for model::Role {
    fn from(role: Role) -> Self {
        match role {
            Role::User => Self::User,
            Role::Agent => Self::Agent,
        }
    }
}

impl From<model::Role> for Role {
    fn from(role: model::Role) -> Self {
        match role {
            model::Role::User => Self::User,
            model::Role::Agent => Self::Agent,
        }
    }
}

/// The lifecycle state of a task, `TASK_STATE_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TaskState {
    /// `TASK_STATE_UNSPECIFIED` (0): the model's [`model::TaskState::Unknown`].
    Unspecified = 0,
    /// `TASK_STATE_SUBMITTED` (1).
    Submitted = 1,
    /// `TASK_STATE_WORKING` (2).
    Working = 2,
    /// `TASK_STATE_COMPLETED` (3), terminal.
    Completed = 3,
    /// `TASK_STATE_FAILED` (4), terminal.
    Failed = 4,
    /// `TASK_STATE_CANCELED` (5), terminal.
    Canceled = 5,
    /// `TASK_STATE_INPUT_REQUIRED` (6), interrupted.
    InputRequired = 6,
    /// `TASK_STATE_REJECTED` (7), terminal.
    Rejected = 7,
    /// `TASK_STATE_AUTH_REQUIRED` (8), interrupted.
    AuthRequired = 8,
}

/// Every state in enum-number order, with its ProtoJSON name.
const STATES: [(TaskState, &str); 9] = [
    (TaskState::Unspecified, "TASK_STATE_UNSPECIFIED"),
    (TaskState::Submitted, "TASK_STATE_SUBMITTED"),
    (TaskState::Working, "TASK_STATE_WORKING"),
    (TaskState::Completed, "TASK_STATE_COMPLETED"),
    (TaskState::Failed, "TASK_STATE_FAILED"),
    (TaskState::Canceled, "TASK_STATE_CANCELED"),
    (TaskState::InputRequired, "TASK_STATE_INPUT_REQUIRED"),
    (TaskState::Rejected, "TASK_STATE_REJECTED"),
    (TaskState::AuthRequired, "TASK_STATE_AUTH_REQUIRED"),
];

impl TaskState {
    /// The ProtoJSON name.
    pub fn as_str(self) -> &'static str {
        STATES[self as usize].1
    }
}

impl Serialize for TaskState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for TaskState {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TaskStateVisitor)
    }
}

struct TaskStateVisitor;

impl Visitor<'_> for TaskStateVisitor {
    type Value = TaskState;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a TASK_STATE_* name or its number")
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<TaskState, E> {
        if let Some((state, _)) = STATES.iter().find(|(_, name)| *name == value) {
            return Ok(*state);
        }
        let v0_3 = STATES
            .iter()
            .find(|(state, _)| model::TaskState::from(*state).v0_3_name() == value);
        match v0_3 {
            Some((_, name)) => Err(E::custom(format!(
                "unknown task state {value:?} (the v0.3 spelling of {name})"
            ))),
            None => Err(E::custom(format!(
                "unknown task state {value:?}; expected a TASK_STATE_* name such as TASK_STATE_WORKING"
            ))),
        }
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<TaskState, E> {
        usize::try_from(value)
            .ok()
            .and_then(|index| STATES.get(index))
            .map(|(state, _)| *state)
            .ok_or_else(|| E::custom(format!("unknown task state {value}; expected 0 to 8")))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<TaskState, E> {
        match u64::try_from(value) {
            Ok(value) => self.visit_u64(value),
            Err(_) => Err(E::custom(format!(
                "unknown task state {value}; expected 0 to 8"
            ))),
        }
    }
}

impl From<TaskState> for model::TaskState {
    fn from(state: TaskState) -> Self {
        match state {
            TaskState::Unspecified => Self::Unknown,
            TaskState::Submitted => Self::Submitted,
            TaskState::Working => Self::Working,
            TaskState::Completed => Self::Completed,
            TaskState::Failed => Self::Failed,
            TaskState::Canceled => Self::Canceled,
            TaskState::InputRequired => Self::InputRequired,
            TaskState::Rejected => Self::Rejected,
            TaskState::AuthRequired => Self::AuthRequired,
        }
    }
}

impl From<model::TaskState> for TaskState {
    fn from(state: model::TaskState) -> Self {
        match state {
            model::TaskState::Unknown => Self::Unspecified,
            model::TaskState::Submitted => Self::Submitted,
            model::TaskState::Working => Self::Working,
            model::TaskState::Completed => Self::Completed,
            model::TaskState::Failed => Self::Failed,
            model::TaskState::Canceled => Self::Canceled,
            model::TaskState::InputRequired => Self::InputRequired,
            model::TaskState::Rejected => Self::Rejected,
            model::TaskState::AuthRequired => Self::AuthRequired,
        }
    }
}
