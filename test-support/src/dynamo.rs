//! DynamoDB tables and task stores on this process's moto server ([`crate::moto`]): every
//! test makes its own table (with the owner index and time to live, as the guide
//! describes), and clients as the function builds them.

use a2a_lambda_dynamodb::{DynamoSettings, DynamoTaskStore, OWNER_INDEX};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::Credentials;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, TimeToLiveSpecification,
};

use crate::moto::moto;

/// Settings for `table` on moto (region `us-east-1`).
pub fn settings(table: &str) -> DynamoSettings {
    DynamoSettings {
        endpoint: Some(moto().endpoint.clone()),
        ..DynamoSettings::new(table, "us-east-1")
    }
}

/// A client as the function builds one (timeouts, retries), with moto's credentials.
pub fn client(settings: &DynamoSettings) -> Client {
    Client::from_conf(
        settings
            .client_config()
            .credentials_provider(Credentials::new("testing", "testing", None, None, "tests"))
            .build(),
    )
}

/// A store with its own client, as another instance of the function would have.
pub fn store(settings: &DynamoSettings) -> DynamoTaskStore {
    DynamoTaskStore::with_client(client(settings), settings)
}

/// Makes a table as the guide describes (docs/src/hosting/dynamodb.md): key `id`, the context index, TTL on `expiresAt`.
///
/// # Panics
/// When moto refuses.
pub async fn create_table(name: &str) -> DynamoSettings {
    let settings = settings(name);
    let client = client(&settings);
    let string = |name: &str| {
        AttributeDefinition::builder()
            .attribute_name(name)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    let key = |name: &str, kind: KeyType| {
        KeySchemaElement::builder()
            .attribute_name(name)
            .key_type(kind)
            .build()
            .unwrap()
    };
    client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(string("id"))
        .attribute_definitions(string("owner"))
        .attribute_definitions(string("statusTimestamp"))
        .key_schema(key("id", KeyType::Hash))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name(OWNER_INDEX)
                .key_schema(key("owner", KeyType::Hash))
                .key_schema(key("statusTimestamp", KeyType::Range))
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::Include)
                        .non_key_attributes("contextId")
                        .non_key_attributes("state")
                        .non_key_attributes("expiresAt")
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("the table is created");
    client
        .update_time_to_live()
        .table_name(name)
        .time_to_live_specification(
            TimeToLiveSpecification::builder()
                .enabled(true)
                .attribute_name("expiresAt")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .expect("time to live is enabled");
    settings
}

/// The DynamoDB operations a client sent, in order (`PutItem`, `GetItem`, …), each attempt
/// counted.
#[derive(Debug, Clone, Default)]
pub struct Calls(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Calls {
    /// The operations sent since the last call.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(
            &mut *self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }
}

#[derive(Debug)]
struct CountCalls(Calls);

impl aws_sdk_dynamodb::config::Intercept for CountCalls {
    fn name(&self) -> &'static str {
        "CountCalls"
    }

    fn read_before_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _runtime_components: &aws_sdk_dynamodb::config::RuntimeComponents,
        _cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Result<(), aws_sdk_dynamodb::error::BoxError> {
        // `X-Amz-Target: DynamoDB_20120810.PutItem`.
        let target = context
            .request()
            .headers()
            .get("x-amz-target")
            .unwrap_or("?");
        let operation = target.rsplit('.').next().unwrap_or(target).to_owned();
        self.0
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(operation);
        Ok(())
    }
}

/// [`client`], counting the calls it sends.
pub fn counting_client(settings: &DynamoSettings) -> (Client, Calls) {
    let calls = Calls::default();
    let client = Client::from_conf(
        settings
            .client_config()
            .credentials_provider(Credentials::new("testing", "testing", None, None, "tests"))
            .interceptor(CountCalls(calls.clone()))
            .build(),
    );
    (client, calls)
}
