//! A task's push-notification configurations in the task table
//! ([`PushConfigStore`] for DynamoDB).
//!
//! # Where they live
//!
//! Beside the task, in the same table, in a sibling item keyed `id = "push#{taskId}"`. Not
//! in the task's own item: every write of a task is a whole-item `PutItem` conditional on
//! its version, so a configuration written there would conflict with the task's runner
//! and bump the version its lease and its followers depend on. (The lead's design for
//! issue 17.)
//!
//! | attribute | type | what |
//! |---|---|---|
//! | `id` | S | `push#{taskId}` |
//! | `configs` | M | config id → the configuration (below) |
//! | `count` | N | how many configurations `configs` holds: the bound's condition reads it |
//! | `seq` | N | how many configurations the task ever had (never goes down) |
//! | `expiresAt` | N | Unix seconds: the table's TTL, now + the task retention at every write |
//!
//! One configuration is a map: `url` (S), `token` (S, when set), `authentication` (M:
//! `schemes` L of S, `credentials` S when set), `protocolVersion` (S, `0.3` or `1.0`: the
//! version its notifications are written in), `order` (N: its creation sequence number,
//! so that listing is oldest first), and `mark` (M: `version` N and `statusAt` S, once a
//! notification was acknowledged or given up on). The config id is the map's key and is
//! never put into an expression: it is always an `ExpressionAttributeNames` value, so any
//! text a client chose (`a.b`, `#x`, `:y`, any Unicode) names exactly one entry.
//!
//! Tokens and credentials are stored as the client gave them (the webhook needs them
//! back): DynamoDB encrypts all table data at rest ("DynamoDB encryption at rest":
//! <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/EncryptionAtRest.html>),
//! and no error or log line of this module carries a configuration's fields.
//!
//! The sibling item has no `owner` and no `statusTimestamp`, so the sparse owner index
//! never lists it and no `ListTasks` sees it; a `GetTask` of its id finds no task. The
//! engine checks the task's owner before it touches a configuration.
//!
//! # Reads and writes
//!
//! [`configs`](PushConfigStore::configs) is one strongly consistent `GetItem`. Every write
//! is one `UpdateItem` with a condition, and asks for the item as it was when the
//! condition fails (`ReturnValuesOnConditionCheckFailure: ALL_OLD`, DynamoDB API
//! Reference, `UpdateItem`:
//! <https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html>),
//! so that a failed write says why without another read:
//!
//! - [`put_config`](PushConfigStore::put_config) first creates the item with the one
//!   configuration (`attribute_not_exists(configs)`). When the item exists, the second
//!   attempt is chosen from the item the failure returned: a new id is added as the
//!   `seq + 1`th (`SET configs.#id = :cfg ADD count :one, seq :one`, on condition that the
//!   id is absent and `count < :max`; two ids created at the same moment may share an
//!   `order`, and are then listed by id), an existing one replaced in place with its
//!   `order` kept (on condition that its `order` is still the one read), and
//!   a new id on a full task is [`ConfigWriteError::Full`] — only when the returned item
//!   really holds [`MAX_CONFIGS_PER_TASK`] others. A nested path cannot be set in an item
//!   that lacks its parent map (DynamoDB Developer Guide, "Using update expressions":
//!   <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html>),
//!   hence the separate creation. Two attempts when nobody races; a writer that lost a race
//!   tries again from what the failure returned, [`PUT_ATTEMPTS`] attempts in all.
//! - [`delete_config`](PushConfigStore::delete_config): `REMOVE configs.#id ADD count
//!   :minus_one`, on condition that it exists; a missing one is `Ok(false)`.
//! - [`mark`](PushConfigStore::mark): `SET configs.#id.mark = :mark`, on condition that the
//!   configuration exists and holds no mark of the same or a later task version (a mark
//!   only moves forward; a failed condition is no error).
//!
//! Each write renews `expiresAt`, so the configurations live as long as a task that keeps
//! changing (each delivery marks). An item past its `expiresAt` is gone before time to live
//! deletes it (which takes up to days): it holds no configurations, no write but a new
//! creation (which replaces it whole) applies to it. The IAM actions: `dynamodb:GetItem` and
//! `dynamodb:UpdateItem` on the table, which the task store needs already.
//!
//! One concept in one file: the configurations' item, its conditional writes and its
//! codec, which only make sense together.

use std::collections::HashMap;
use std::time::Duration;

use a2a_lambda_core::model::{PushAuthentication, PushNotificationConfig};
use a2a_lambda_core::version::ProtocolVersion;
use a2a_lambda_server::push::{
    ConfigWriteError, MAX_CONFIGS_PER_TASK, Mark, PushConfigStore, StoredConfig,
};
use a2a_lambda_server::tasks::StoreError;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValuesOnConditionCheckFailure};

use crate::item::{attr, expires_at, unix_now};
use crate::settings::DynamoSettings;
use crate::store::DynamoTaskStore;

/// The condition that the item has not expired (`:now` is the time of the write; an item
/// written without `expiresAt` never expires).
const LIVE: &str = "(attribute_not_exists(#exp) OR #exp > :now)";

/// Most `UpdateItem`s one `put_config` sends: the creation, then one per lost race.
pub const PUT_ATTEMPTS: usize = 4;

/// The names of the sibling item's attributes and of a configuration's fields.
mod name {
    pub const CONFIGS: &str = "configs";
    pub const COUNT: &str = "count";
    pub const SEQ: &str = "seq";
    pub const URL: &str = "url";
    pub const TOKEN: &str = "token";
    pub const AUTHENTICATION: &str = "authentication";
    pub const SCHEMES: &str = "schemes";
    pub const CREDENTIALS: &str = "credentials";
    pub const PROTOCOL_VERSION: &str = "protocolVersion";
    pub const ORDER: &str = "order";
    pub const MARK: &str = "mark";
    pub const VERSION: &str = "version";
    pub const STATUS_AT: &str = "statusAt";
}

/// Whether an item is a task's push-configuration item (not a task).
pub(super) fn is_push_item(item: &HashMap<String, AttributeValue>) -> bool {
    item.contains_key(name::CONFIGS)
}

/// The id of the item holding `task_id`'s configurations.
pub fn item_id(task_id: &str) -> String {
    format!("push#{task_id}")
}

/// The push-notification configurations of the tasks of a [`DynamoTaskStore`], in the same
/// table (see the module documentation).
#[derive(Debug, Clone)]
pub struct DynamoPushConfigStore {
    client: Client,
    table: String,
    retention: Duration,
}

impl DynamoTaskStore {
    /// The push-configuration store on this store's table, sharing its client.
    pub fn push_configs(&self) -> DynamoPushConfigStore {
        DynamoPushConfigStore {
            client: self.client.clone(),
            table: self.table.clone(),
            retention: self.retention,
        }
    }
}

impl DynamoPushConfigStore {
    /// A store on the table the settings name, with its own client (no network call is
    /// made until the first request).
    pub fn new(settings: &DynamoSettings) -> Self {
        DynamoTaskStore::new(settings).push_configs()
    }

    /// A store using `client` (built from [`DynamoSettings::client_config`]) on the table
    /// the settings name.
    pub fn with_client(client: Client, settings: &DynamoSettings) -> Self {
        DynamoTaskStore::with_client(client, settings).push_configs()
    }

    /// `expiresAt` for a write now.
    fn expiry(&self) -> AttributeValue {
        let retention = i64::try_from(self.retention.as_secs()).unwrap_or(i64::MAX);
        AttributeValue::N(unix_now().saturating_add(retention).to_string())
    }

    /// An `UpdateItem` of `task_id`'s item naming the attributes every write uses, and
    /// asking for the old item when the condition fails.
    fn update(&self, task_id: &str) -> UpdateItemFluentBuilder {
        self.client
            .update_item()
            .table_name(&self.table)
            .key(attr::ID, AttributeValue::S(item_id(task_id)))
            .expression_attribute_names("#configs", name::CONFIGS)
            .expression_attribute_names("#exp", attr::EXPIRES_AT)
            .expression_attribute_values(":exp", self.expiry())
            .expression_attribute_values(":now", AttributeValue::N(unix_now().to_string()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
    }

    fn backend<R: std::fmt::Debug>(
        &self,
        operation: &str,
        task_id: &str,
        error: &SdkError<UpdateItemError, R>,
    ) -> StoreError {
        StoreError::Backend(format!(
            "{operation} of the push configurations of task {task_id} on table {}: {}",
            self.table,
            aws_sdk_dynamodb::error::DisplayErrorContext(error)
        ))
    }

    /// Sends `request`: `Ok(None)` when it was applied, `Ok(Some(old))` when its condition
    /// failed (`old`: the item as it was, empty when there was none or DynamoDB did not
    /// say).
    async fn conditional(
        &self,
        operation: &str,
        task_id: &str,
        request: UpdateItemFluentBuilder,
    ) -> Result<Option<HashMap<String, AttributeValue>>, StoreError> {
        match request.send().await {
            Ok(_) => Ok(None),
            Err(error) => match error.as_service_error() {
                Some(UpdateItemError::ConditionalCheckFailedException(failed)) => {
                    Ok(Some(failed.item().cloned().unwrap_or_default()))
                }
                _ => Err(self.backend(operation, task_id, &error)),
            },
        }
    }
}

/// What the item a failed condition returned says about a configuration id.
enum Found {
    /// No item, an expired one, or one without configurations: create it.
    NoItem,
    /// The id is there, created with this `order`: replace it in place.
    Exists { order: u64 },
    /// The id is not there; the item holds `count` configurations and had `seq` in all
    /// (`None`: not recorded).
    Absent { count: u64, seq: Option<u64> },
}

impl Found {
    fn read(item: &HashMap<String, AttributeValue>, config_id: &str) -> Self {
        // An expired item is gone, though time to live has not deleted it yet.
        if expires_at(item).is_some_and(|at| at <= unix_now()) {
            return Self::NoItem;
        }
        let Some(configs) = item.get(name::CONFIGS).and_then(|value| value.as_m().ok()) else {
            return Self::NoItem;
        };
        if let Some(config) = configs.get(config_id) {
            let order = config
                .as_m()
                .ok()
                .and_then(|fields| number(fields, name::ORDER))
                .unwrap_or(0);
            return Self::Exists { order };
        }
        let count = number(item, name::COUNT).unwrap_or(configs.len() as u64);
        Self::Absent {
            count,
            seq: number(item, name::SEQ),
        }
    }
}

#[async_trait::async_trait]
impl PushConfigStore for DynamoPushConfigStore {
    async fn configs(&self, task_id: &str) -> Result<Vec<StoredConfig>, StoreError> {
        let output = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(attr::ID, AttributeValue::S(item_id(task_id)))
            .consistent_read(true)
            .projection_expression("#configs, #exp")
            .expression_attribute_names("#configs", name::CONFIGS)
            .expression_attribute_names("#exp", attr::EXPIRES_AT)
            .send()
            .await
            .map_err(|error| {
                StoreError::Backend(format!(
                    "GetItem of the push configurations of task {task_id} on table {}: {}",
                    self.table,
                    aws_sdk_dynamodb::error::DisplayErrorContext(&error)
                ))
            })?;
        let Some(item) = output.item else {
            return Ok(Vec::new());
        };
        // Time to live deletes expired items within days, not at once.
        if expires_at(&item).is_some_and(|at| at <= unix_now()) {
            return Ok(Vec::new());
        }
        let Some(configs) = item.get(name::CONFIGS).and_then(|value| value.as_m().ok()) else {
            return Ok(Vec::new());
        };
        let mut found = configs
            .iter()
            .map(|(id, value)| decode(task_id, id, value))
            .collect::<Result<Vec<_>, _>>()?;
        found.sort_by(|(a, a_config), (b, b_config)| {
            a.cmp(b).then_with(|| a_config.id().cmp(b_config.id()))
        });
        Ok(found.into_iter().map(|(_, config)| config).collect())
    }

    async fn put_config(
        &self,
        task_id: &str,
        config: StoredConfig,
    ) -> Result<(), ConfigWriteError> {
        let config_id = config.id().to_owned();
        if config_id.is_empty() {
            return Err(StoreError::Backend(format!(
                "a push configuration of task {task_id} has no id"
            ))
            .into());
        }
        let max = MAX_CONFIGS_PER_TASK as u64;
        let mut found = Found::NoItem;
        for _ in 0..PUT_ATTEMPTS {
            let request = self.update(task_id);
            let (operation, request) = match found {
                Found::NoItem => (
                    "UpdateItem (create)",
                    request
                        .update_expression(
                            "SET #configs = :configs, #count = :one, #seq = :one, #exp = :exp",
                        )
                        .condition_expression("attribute_not_exists(#configs) OR #exp <= :now")
                        .expression_attribute_names("#count", name::COUNT)
                        .expression_attribute_names("#seq", name::SEQ)
                        .expression_attribute_values(
                            ":configs",
                            AttributeValue::M(HashMap::from([(
                                config_id.clone(),
                                encode(&config, 1),
                            )])),
                        )
                        .expression_attribute_values(":one", AttributeValue::N("1".to_owned())),
                ),
                Found::Exists { order } => (
                    "UpdateItem (replace)",
                    request
                        .expression_attribute_names("#cid", &config_id)
                        .update_expression("SET #configs.#cid = :cfg, #exp = :exp")
                        .condition_expression(format!("#configs.#cid.#order = :order AND {LIVE}"))
                        .expression_attribute_names("#order", name::ORDER)
                        .expression_attribute_values(":cfg", encode(&config, order))
                        .expression_attribute_values(
                            ":order",
                            AttributeValue::N(order.to_string()),
                        ),
                ),
                Found::Absent { count, .. } if count >= max => {
                    return Err(ConfigWriteError::Full(task_id.to_owned()));
                }
                Found::Absent { seq, .. } => {
                    let order = seq.unwrap_or(0).saturating_add(1);
                    let request = request
                        .expression_attribute_names("#cid", &config_id)
                        .update_expression(
                            "SET #configs.#cid = :cfg, #exp = :exp ADD #count :one, #seq :one",
                        )
                        .condition_expression(format!(
                            "attribute_exists(#configs) AND attribute_not_exists(#configs.#cid) \
                             AND (attribute_not_exists(#count) OR #count < :max) AND {LIVE}"
                        ))
                        .expression_attribute_names("#count", name::COUNT)
                        .expression_attribute_names("#seq", name::SEQ)
                        .expression_attribute_values(":cfg", encode(&config, order))
                        .expression_attribute_values(":one", AttributeValue::N("1".to_owned()))
                        .expression_attribute_values(":max", AttributeValue::N(max.to_string()));
                    ("UpdateItem (add)", request)
                }
            };
            match self.conditional(operation, task_id, request).await? {
                None => return Ok(()),
                Some(old) => found = Found::read(&old, &config_id),
            }
        }
        Err(StoreError::Backend(format!(
            "push configuration {config_id:?} of task {task_id}: other writers changed the \
             task's configurations {PUT_ATTEMPTS} times in a row"
        ))
        .into())
    }

    async fn delete_config(&self, task_id: &str, config_id: &str) -> Result<bool, StoreError> {
        if config_id.is_empty() {
            return Ok(false);
        }
        let request = self
            .update(task_id)
            .expression_attribute_names("#cid", config_id)
            .update_expression("REMOVE #configs.#cid SET #exp = :exp ADD #count :minus_one")
            .condition_expression(format!("attribute_exists(#configs.#cid) AND {LIVE}"))
            .expression_attribute_names("#count", name::COUNT)
            .expression_attribute_values(":minus_one", AttributeValue::N("-1".to_owned()));
        Ok(self
            .conditional("UpdateItem (delete)", task_id, request)
            .await?
            .is_none())
    }

    async fn mark(&self, task_id: &str, config_id: &str, mark: &Mark) -> Result<(), StoreError> {
        if config_id.is_empty() {
            return Ok(());
        }
        let request = self
            .update(task_id)
            .expression_attribute_names("#cid", config_id)
            .update_expression("SET #configs.#cid.#mark = :mark, #exp = :exp")
            .condition_expression(format!(
                "attribute_exists(#configs.#cid) AND {LIVE} \
                 AND (attribute_not_exists(#configs.#cid.#mark) \
                 OR #configs.#cid.#mark.#version < :version)"
            ))
            .expression_attribute_names("#mark", name::MARK)
            .expression_attribute_names("#version", name::VERSION)
            .expression_attribute_values(":mark", encode_mark(mark))
            .expression_attribute_values(":version", AttributeValue::N(mark.version.to_string()));
        // A failed condition: the configuration is gone, or holds this mark or a later one.
        self.conditional("UpdateItem (mark)", task_id, request)
            .await
            .map(|_| ())
    }
}

/// A configuration as a map attribute, created as the `order`th of its task.
fn encode(stored: &StoredConfig, order: u64) -> AttributeValue {
    let config = &stored.config;
    let mut fields = HashMap::from([
        (name::URL.to_owned(), AttributeValue::S(config.url.clone())),
        (
            name::PROTOCOL_VERSION.to_owned(),
            AttributeValue::S(stored.version.as_str().to_owned()),
        ),
        (name::ORDER.to_owned(), AttributeValue::N(order.to_string())),
    ]);
    if let Some(token) = &config.token {
        fields.insert(name::TOKEN.to_owned(), AttributeValue::S(token.clone()));
    }
    if let Some(authentication) = &config.authentication {
        let mut auth = HashMap::from([(
            name::SCHEMES.to_owned(),
            AttributeValue::L(
                authentication
                    .schemes
                    .iter()
                    .map(|scheme| AttributeValue::S(scheme.clone()))
                    .collect(),
            ),
        )]);
        if let Some(credentials) = &authentication.credentials {
            auth.insert(
                name::CREDENTIALS.to_owned(),
                AttributeValue::S(credentials.clone()),
            );
        }
        fields.insert(name::AUTHENTICATION.to_owned(), AttributeValue::M(auth));
    }
    if let Some(mark) = &stored.mark {
        fields.insert(name::MARK.to_owned(), encode_mark(mark));
    }
    AttributeValue::M(fields)
}

fn encode_mark(mark: &Mark) -> AttributeValue {
    AttributeValue::M(HashMap::from([
        (
            name::VERSION.to_owned(),
            AttributeValue::N(mark.version.to_string()),
        ),
        (
            name::STATUS_AT.to_owned(),
            AttributeValue::S(mark.status_at.clone()),
        ),
    ]))
}

/// The configuration `id` of `task_id` a map attribute holds, with its `order`.
fn decode(
    task_id: &str,
    id: &str,
    value: &AttributeValue,
) -> Result<(u64, StoredConfig), StoreError> {
    let broken = |what: &str| {
        StoreError::Backend(format!(
            "push configuration {id:?} of task {task_id} is not readable: {what}"
        ))
    };
    let fields = value.as_m().map_err(|_| broken("not a map"))?;
    let url = text(fields, name::URL).ok_or_else(|| broken("no url"))?;
    let version = match text(fields, name::PROTOCOL_VERSION).as_deref() {
        Some("0.3") => ProtocolVersion::V0_3,
        Some("1.0") => ProtocolVersion::V1_0,
        _ => return Err(broken("no protocolVersion 0.3 or 1.0")),
    };
    let order = number(fields, name::ORDER).ok_or_else(|| broken("no order"))?;
    let authentication = match fields.get(name::AUTHENTICATION) {
        None => None,
        Some(value) => {
            let auth = value
                .as_m()
                .map_err(|_| broken("authentication is not a map"))?;
            let schemes = auth
                .get(name::SCHEMES)
                .and_then(|value| value.as_l().ok())
                .ok_or_else(|| broken("authentication has no schemes"))?
                .iter()
                .map(|scheme| scheme.as_s().cloned())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| broken("a scheme is not text"))?;
            Some(PushAuthentication {
                schemes,
                credentials: text(auth, name::CREDENTIALS),
            })
        }
    };
    let mark = match fields.get(name::MARK) {
        None => None,
        Some(value) => {
            let mark = value.as_m().map_err(|_| broken("mark is not a map"))?;
            Some(Mark {
                version: number(mark, name::VERSION)
                    .ok_or_else(|| broken("mark has no version"))?,
                status_at: text(mark, name::STATUS_AT).unwrap_or_default(),
            })
        }
    };
    Ok((
        order,
        StoredConfig {
            config: PushNotificationConfig {
                id: Some(id.to_owned()),
                url,
                token: text(fields, name::TOKEN),
                authentication,
            },
            version,
            mark,
        },
    ))
}

fn text(fields: &HashMap<String, AttributeValue>, name: &str) -> Option<String> {
    fields.get(name)?.as_s().ok().cloned()
}

fn number(fields: &HashMap<String, AttributeValue>, name: &str) -> Option<u64> {
    fields.get(name)?.as_n().ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(id: &str) -> StoredConfig {
        StoredConfig {
            config: PushNotificationConfig {
                id: Some(id.to_owned()),
                url: "https://hooks.example.com/a2a".to_owned(),
                token: Some("tok".to_owned()),
                authentication: Some(PushAuthentication {
                    schemes: vec!["Bearer".to_owned()],
                    credentials: Some("secret".to_owned()),
                }),
            },
            version: ProtocolVersion::V1_0,
            mark: Some(Mark {
                version: 3,
                status_at: "2026-01-02T03:04:05.678Z".to_owned(),
            }),
        }
    }

    #[test]
    fn a_configuration_reads_back_as_written() {
        let config = stored("a.b");
        assert_eq!(
            decode("t", "a.b", &encode(&config, 7)).unwrap(),
            (7, config)
        );
        let bare = StoredConfig {
            config: PushNotificationConfig {
                id: Some("x".to_owned()),
                url: "https://h.example/".to_owned(),
                token: None,
                authentication: None,
            },
            version: ProtocolVersion::V0_3,
            mark: None,
        };
        assert_eq!(decode("t", "x", &encode(&bare, 1)).unwrap(), (1, bare));
    }

    #[test]
    fn a_broken_configuration_is_a_clear_error() {
        let error = decode("t-1", "c", &AttributeValue::S("x".to_owned()))
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "task store failed: push configuration \"c\" of task t-1 is not readable: not a map"
        );
    }

    #[test]
    fn the_sibling_item_is_named_for_its_task() {
        assert_eq!(item_id("t-1"), "push#t-1");
    }
}
