//! AWS Signature Version 4 for AgentCore Runtime (`InvokeAgentRuntime` and the agent card
//! behind the same invocation URL).
//!
//! Each attempt is signed afresh (a retried request gets a new `X-Amz-Date`). The body is
//! signed as it is: the request is fully buffered before signing.

use std::fmt;
use std::time::SystemTime;

use aws_config::BehaviorVersion;
use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use reqwest::header::{HeaderName, HeaderValue};

use crate::auth::AGENTCORE_SERVICE;
use crate::error::Error;

/// A SigV4 signer: a credentials provider, a region and a service name.
#[derive(Clone)]
pub struct SigV4 {
    credentials: SharedCredentialsProvider,
    region: String,
    service: String,
}

impl fmt::Debug for SigV4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigV4")
            .field("region", &self.region)
            .field("service", &self.service)
            .finish_non_exhaustive()
    }
}

impl SigV4 {
    /// Signs for `bedrock-agentcore` in `region` with these credentials.
    pub fn new(credentials: impl ProvideCredentials + 'static, region: impl Into<String>) -> Self {
        Self {
            credentials: SharedCredentialsProvider::new(credentials),
            region: region.into(),
            service: AGENTCORE_SERVICE.to_owned(),
        }
    }

    /// Credentials and region from the AWS SDK's default chains (environment, shared
    /// config and credentials files, web identity, container and instance metadata).
    /// `region`, when given, wins over the chain's.
    ///
    /// # Errors
    /// [`Error::Signing`] when no credentials provider or no region can be found.
    pub async fn from_environment(region: Option<String>) -> Result<Self, Error> {
        let mut loader = aws_config::defaults(BehaviorVersion::latest());
        if let Some(region) = region.clone() {
            loader = loader.region(aws_config::Region::new(region));
        }
        let config = loader.load().await;
        let region = region
            .or_else(|| config.region().map(ToString::to_string))
            .ok_or_else(|| {
                Error::Signing("no AWS region: set AWS_REGION or pass one (--region)".to_owned())
            })?;
        let credentials = config.credentials_provider().ok_or_else(|| {
            Error::Signing("no AWS credentials provider is configured".to_owned())
        })?;
        Ok(Self {
            credentials,
            region,
            service: AGENTCORE_SERVICE.to_owned(),
        })
    }

    /// The same signer for another service name.
    pub fn with_service(mut self, service: impl Into<String>) -> Self {
        self.service = service.into();
        self
    }

    /// The region signed for.
    pub fn region(&self) -> &str {
        &self.region
    }

    /// Signs `request` in place: adds `Authorization`, `X-Amz-Date` and, for temporary
    /// credentials, `X-Amz-Security-Token`.
    pub(crate) async fn sign(&self, request: &mut reqwest::Request) -> Result<(), Error> {
        let credentials = self
            .credentials
            .provide_credentials()
            .await
            .map_err(|error| Error::Signing(format!("no AWS credentials: {error}")))?;
        let identity = credentials.into();
        let params = v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name(&self.service)
            .time(SystemTime::now())
            .settings(SigningSettings::default())
            .build()
            .map_err(|error| Error::Signing(error.to_string()))?
            .into();
        let headers: Vec<(&str, &str)> = request
            .headers()
            .iter()
            .filter_map(|(name, value)| value.to_str().ok().map(|value| (name.as_str(), value)))
            .collect();
        let body = request
            .body()
            .and_then(reqwest::Body::as_bytes)
            .unwrap_or_default();
        let signable = SignableRequest::new(
            request.method().as_str(),
            request.url().as_str(),
            headers.into_iter(),
            SignableBody::Bytes(body),
        )
        .map_err(|error| Error::Signing(error.to_string()))?;
        let (instructions, _signature) = sign(signable, &params)
            .map_err(|error| Error::Signing(error.to_string()))?
            .into_parts();
        let (headers, _query) = instructions.into_parts();
        for header in headers {
            let name = HeaderName::try_from(header.name())
                .map_err(|error| Error::Signing(error.to_string()))?;
            let mut value = HeaderValue::try_from(header.value())
                .map_err(|error| Error::Signing(error.to_string()))?;
            value.set_sensitive(header.sensitive());
            request.headers_mut().insert(name, value);
        }
        Ok(())
    }
}

/// The signing name and region an AWS endpoint's host implies: AgentCore's data plane
/// (`bedrock-agentcore.us-west-2.amazonaws.com` → `bedrock-agentcore`, `us-west-2`) or a
/// Lambda function URL (`abc.lambda-url.eu-west-1.on.aws` → `lambda`, `eu-west-1`).
pub fn signing_for_host(host: &str) -> Option<(&'static str, String)> {
    if let Some(rest) = host.strip_prefix("bedrock-agentcore.") {
        let (region, domain) = rest.split_once('.')?;
        return (domain.starts_with("amazonaws.com") && !region.is_empty())
            .then(|| (AGENTCORE_SERVICE, region.to_owned()));
    }
    let (_, rest) = host.split_once(".lambda-url.")?;
    let (region, domain) = rest.split_once('.')?;
    (domain == "on.aws" && !region.is_empty()).then(|| ("lambda", region.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_and_region_come_from_aws_hosts_only() {
        let signing =
            |host| signing_for_host(host).map(|(service, region)| format!("{service} {region}"));
        assert_eq!(
            signing("bedrock-agentcore.us-west-2.amazonaws.com").as_deref(),
            Some("bedrock-agentcore us-west-2")
        );
        assert_eq!(
            signing("bedrock-agentcore.cn-north-1.amazonaws.com.cn").as_deref(),
            Some("bedrock-agentcore cn-north-1")
        );
        assert_eq!(
            signing("abcdefgh123.lambda-url.eu-west-1.on.aws").as_deref(),
            Some("lambda eu-west-1")
        );
        assert_eq!(signing("example.com"), None);
        assert_eq!(signing("bedrock-agentcore.example.com"), None);
        assert_eq!(signing("x.lambda-url.eu-west-1.example.com"), None);
    }
}
