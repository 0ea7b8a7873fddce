//! Where a webhook may point: the guard against server-side request forgery (SSRF).
//!
//! A push notification config names a URL the *client* chose, and the agent POSTs to it
//! from inside its own network. Without a guard, a client could make the agent call the
//! cloud instance metadata service (`169.254.169.254`, and `fd00:ec2::254` on IPv6,
//! <https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html>),
//! the ECS/AgentCore container credentials endpoint (`169.254.170.2`,
//! <https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-metadata-endpoint-v2.html>),
//! the Lambda Runtime API of the execution environment (`AWS_LAMBDA_RUNTIME_API`,
//! <https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html>), or any private
//! service of the VPC. A2A v1.0 §13.2 (Push Notification Security): "Agents SHOULD validate
//! webhook URLs to prevent SSRF (Server-Side Request Forgery) attacks: reject private IP
//! ranges (127.0.0.0/8, 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16), reject localhost and
//! link-local addresses", and "Webhook URLs SHOULD use HTTPS".
//!
//! What is not public comes from RFC 6890 and the IANA special-purpose address registries
//! (<https://www.iana.org/assignments/iana-ipv4-special-registry/>,
//! <https://www.iana.org/assignments/iana-ipv6-special-registry/>), plus multicast
//! (IPv4 224.0.0.0/4, RFC 5771; IPv6 ff00::/8, RFC 4291 §2.7) and, on IPv6, everything
//! outside 2000::/3, the only block IANA allocates for global unicast
//! (<https://www.iana.org/assignments/ipv6-address-space/>). IPv6 forms that carry an
//! IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by that address.
//!
//! A URL is checked twice: when a client sets a config ([`check_url`]), and at connect
//! time by the delivery's resolver, because a name may resolve to another address by then
//! (DNS rebinding).
//!
//! One concept, the guard's checks (policy, refusal texts, URL form, resolution), with
//! their tests; the address tables they consult are in `target/blocks.rs`.

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::time::Duration;

use url::{Host, Url};

mod blocks;

use blocks::block;

/// How long [`check_url`] waits for a name to resolve.
pub const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// Where a webhook may point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TargetPolicy {
    /// Production default: `https` only, and every resolved address must be public.
    #[default]
    PublicHttps,
    /// Local development (the emulator's default): also `http`, and loopback addresses
    /// (127.0.0.0/8, ::1) besides public ones. Private, link-local etc. still refused.
    Loopback,
    /// `--push-allow-insecure-targets` / `A2A_PUSH_ALLOW_PRIVATE=true`: `http` and every
    /// address class allowed (a lab network). Still no redirects, no proxies.
    AllowPrivate,
}

impl TargetPolicy {
    /// The policy an `allow private targets` switch selects: [`AllowPrivate`] when set,
    /// else the production default [`PublicHttps`].
    ///
    /// [`AllowPrivate`]: TargetPolicy::AllowPrivate
    /// [`PublicHttps`]: TargetPolicy::PublicHttps
    pub fn from_env_flag(allow_private: bool) -> Self {
        if allow_private {
            Self::AllowPrivate
        } else {
            Self::PublicHttps
        }
    }

    /// Whether plain `http` URLs are accepted.
    pub fn allows_http(self) -> bool {
        !matches!(self, Self::PublicHttps)
    }

    /// The name [`FromStr`] reads and [`Display`](fmt::Display) writes.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PublicHttps => "public-https",
            Self::Loopback => "loopback",
            Self::AllowPrivate => "allow-private",
        }
    }
}

impl fmt::Display for TargetPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of `public-https`, `loopback`, `allow-private`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown push target policy {0:?}: expected public-https, loopback or allow-private")]
pub struct UnknownTargetPolicy(pub String);

impl FromStr for TargetPolicy {
    type Err = UnknownTargetPolicy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "public-https" => Ok(Self::PublicHttps),
            "loopback" => Ok(Self::Loopback),
            "allow-private" => Ok(Self::AllowPrivate),
            other => Err(UnknownTargetPolicy(other.to_owned())),
        }
    }
}

/// Why a webhook URL is refused. The [`Display`](fmt::Display) text is the user-facing
/// reason (it names the host and address, never the URL's path or query).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// The text is not an absolute URL (the parser's reason).
    #[error("url: not an absolute URL: {0}")]
    NotAbsolute(String),
    /// `http` under [`TargetPolicy::PublicHttps`].
    #[error("url: must use https (http is allowed only with --push-allow-insecure-targets)")]
    InsecureScheme,
    /// Neither `https` nor `http`.
    #[error("url: the scheme {0:?} is not supported; webhooks must use https")]
    UnsupportedScheme(String),
    /// `user:password@` in the URL: credentials belong in the config's `authentication`.
    #[error("url: must not carry user:password (put credentials in authentication)")]
    Userinfo,
    /// No host to connect to.
    #[error("url: has no host")]
    NoHost,
    /// The host is (or resolves to) an address the policy does not allow.
    #[error("{}", refusal(.host.as_deref(), *.ip, .class, .range, *.policy))]
    NotAllowed {
        /// The name that resolved to `ip`; `None` when the URL holds the address itself.
        host: Option<String>,
        /// The refused address.
        ip: IpAddr,
        /// Its class, as [`address_class`] names it.
        class: &'static str,
        /// The block it is in, as the registry writes it (with a note for some).
        range: String,
        /// The policy that refused it.
        policy: TargetPolicy,
    },
    /// The name has no address.
    #[error("url: the host {0} does not resolve")]
    Unresolvable(String),
    /// The name did not resolve in time.
    #[error("url: the host {host} did not resolve within {seconds} s")]
    ResolveTimeout {
        /// The name.
        host: String,
        /// How long it was given.
        seconds: u64,
    },
}

impl TargetError {
    /// Whether this is a refusal by policy ([`TargetError::NotAllowed`], or a scheme or URL
    /// the policy never accepts), as opposed to a name that failed to resolve (which may be
    /// transient).
    pub fn is_refusal(&self) -> bool {
        !matches!(self, Self::Unresolvable(_) | Self::ResolveTimeout { .. })
    }

    /// The refused address, for the operator's log (the text sent to the client names
    /// only the host and the address's class when a name resolved to it).
    pub fn address(&self) -> Option<IpAddr> {
        match self {
            Self::NotAllowed { ip, .. } => Some(*ip),
            _ => None,
        }
    }
}

/// The text of [`TargetError::NotAllowed`]. A name is reported with the class and block of
/// what it resolved to, not the address itself: an internal DNS answer is an internal
/// detail (logged by the caller, not sent to the client).
fn refusal(
    host: Option<&str>,
    ip: IpAddr,
    class: &str,
    range: &str,
    policy: TargetPolicy,
) -> String {
    // "an IPv4-mapped", "an unspecified", but "a unique-local".
    let article = if class.starts_with(['a', 'e', 'i', 'o', 'I', 'u']) && !class.starts_with("uni")
    {
        "an"
    } else {
        "a"
    };
    let rule = match policy {
        TargetPolicy::Loopback => {
            "webhooks must be public or loopback (other addresses are allowed only with \
             --push-allow-insecure-targets)"
        }
        _ => "webhooks must be public",
    };
    match host {
        Some(host) => {
            format!("url: {host} resolves to {article} {class} address ({range}); {rule}")
        }
        None => format!("url: {ip} is {article} {class} address ({range}); {rule}"),
    }
}

/// The class of a non-public address (`"loopback"`, `"private"`, `"link-local"`,
/// `"unique-local"`, `"multicast"`, `"unspecified"`, `"broadcast"`,
/// `"shared address space (CGNAT)"`, `"documentation"`, `"benchmarking"`, `"reserved"`,
/// `"IPv4-mapped loopback"`, `"NAT64 private"`, …), or `None` for a public one.
///
/// From RFC 6890 and the IANA special-purpose address registries; see the
/// [module documentation](self).
///
/// ```
/// use a2a_lambda_server::push::target::address_class;
///
/// assert_eq!(address_class("169.254.169.254".parse().unwrap()), Some("link-local"));
/// assert_eq!(address_class("::ffff:10.0.0.1".parse().unwrap()), Some("IPv4-mapped private"));
/// assert_eq!(address_class("93.184.215.14".parse().unwrap()), None);
/// ```
pub fn address_class(ip: IpAddr) -> Option<&'static str> {
    block(ip).map(|b| b.class)
}

/// Whether `ip` may be contacted under `policy`.
///
/// ```
/// use a2a_lambda_server::push::target::{allows, TargetPolicy};
///
/// let loopback = "127.0.0.1".parse().unwrap();
/// assert!(allows(TargetPolicy::PublicHttps, loopback).is_err());
/// assert!(allows(TargetPolicy::Loopback, loopback).is_ok());
/// ```
pub fn allows(policy: TargetPolicy, ip: IpAddr) -> Result<(), TargetError> {
    check_ip(policy, ip, None)
}

/// [`allows`], naming `host` (the name that resolved to `ip`) in the refusal.
fn check_ip(policy: TargetPolicy, ip: IpAddr, host: Option<&str>) -> Result<(), TargetError> {
    let Some(block) = block(ip) else {
        return Ok(());
    };
    let allowed = match policy {
        TargetPolicy::PublicHttps => false,
        TargetPolicy::Loopback => block.loopback,
        TargetPolicy::AllowPrivate => true,
    };
    if allowed {
        return Ok(());
    }
    Err(TargetError::NotAllowed {
        host: host.map(str::to_owned),
        ip,
        class: block.class,
        range: block.range_text(),
        policy,
    })
}

/// What the URL names to connect to, once its form is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// An address written in the URL (already checked).
    Address(IpAddr),
    /// A name still to resolve (and check) at connect time, with the port to use.
    Name(String, u16),
}

/// Everything [`check_url`] checks that needs no DNS: the URL parses, its scheme is allowed,
/// it carries no `user:password`, and an address written in it is allowed. Returns the
/// parsed URL and what remains to resolve.
///
/// The delivery uses this before each send; its resolver checks names at connect time.
pub fn check_url_form(url: &str, policy: TargetPolicy) -> Result<(Url, Destination), TargetError> {
    let parsed = Url::parse(url).map_err(|e| TargetError::NotAbsolute(e.to_string()))?;
    match parsed.scheme() {
        "https" => {}
        "http" if policy.allows_http() => {}
        "http" => return Err(TargetError::InsecureScheme),
        other => return Err(TargetError::UnsupportedScheme(other.to_owned())),
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(TargetError::Userinfo);
    }
    let destination = match parsed.host() {
        None => return Err(TargetError::NoHost),
        Some(Host::Ipv4(v4)) => Destination::Address(IpAddr::V4(v4)),
        Some(Host::Ipv6(v6)) => Destination::Address(IpAddr::V6(v6)),
        Some(Host::Domain(name)) => {
            // The WHATWG parser turns every IPv4 spelling (`0x7f.1`, `2130706433`) into an
            // address for http(s); a name is a name.
            let port = parsed.port_or_known_default().unwrap_or(443);
            Destination::Name(name.to_owned(), port)
        }
    };
    if let Destination::Address(ip) = destination {
        allows(policy, ip)?;
    }
    Ok((parsed, destination))
}

/// Resolves `host` and checks every address it has: refused when any one is not allowed
/// (the answer may be used in any order, so one bad address is enough).
pub async fn resolve_checked(
    host: &str,
    port: u16,
    policy: TargetPolicy,
) -> Result<Vec<SocketAddr>, TargetError> {
    let lookup = tokio::net::lookup_host((host, port));
    let addrs: Vec<SocketAddr> = match tokio::time::timeout(RESOLVE_TIMEOUT, lookup).await {
        Err(_) => {
            return Err(TargetError::ResolveTimeout {
                host: host.to_owned(),
                seconds: RESOLVE_TIMEOUT.as_secs(),
            });
        }
        Ok(Err(_)) => return Err(TargetError::Unresolvable(host.to_owned())),
        Ok(Ok(addrs)) => addrs.collect(),
    };
    if addrs.is_empty() {
        return Err(TargetError::Unresolvable(host.to_owned()));
    }
    for addr in &addrs {
        check_ip(policy, addr.ip(), Some(host))?;
    }
    Ok(addrs)
}

/// The check made when a client sets a config: parses the URL, checks the scheme and
/// userinfo, resolves the host (bounded by [`RESOLVE_TIMEOUT`]) and checks every address.
/// Returns the parsed URL.
///
/// ```
/// use a2a_lambda_server::push::target::{check_url, TargetPolicy};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let lab = check_url("http://169.254.169.254/latest/meta-data/", TargetPolicy::AllowPrivate);
/// assert!(lab.await.is_ok());
/// let refused = check_url("https://169.254.169.254/latest/meta-data/", TargetPolicy::PublicHttps)
///     .await
///     .unwrap_err();
/// assert!(refused.to_string().starts_with("url: 169.254.169.254 is a link-local address"));
/// # }
/// ```
pub async fn check_url(url: &str, policy: TargetPolicy) -> Result<Url, TargetError> {
    let (parsed, destination) = check_url_form(url, policy)?;
    if let Destination::Name(host, port) = destination {
        resolve_checked(&host, port, policy).await?;
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        for public in ["8.8.8.8", "2606:4700:4700::1111"] {
            for policy in [
                TargetPolicy::PublicHttps,
                TargetPolicy::Loopback,
                TargetPolicy::AllowPrivate,
            ] {
                assert_eq!(allows(policy, ip(public)), Ok(()), "{public} {policy}");
            }
        }
        for loopback in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            assert!(allows(TargetPolicy::PublicHttps, ip(loopback)).is_err());
            assert_eq!(
                allows(TargetPolicy::Loopback, ip(loopback)),
                Ok(()),
                "{loopback}"
            );
        }
        for other in ["10.0.0.1", "169.254.169.254", "fe80::1", "0.0.0.0", "::"] {
            assert!(
                allows(TargetPolicy::Loopback, ip(other)).is_err(),
                "{other}"
            );
            assert_eq!(
                allows(TargetPolicy::AllowPrivate, ip(other)),
                Ok(()),
                "{other}"
            );
        }
    }

    #[test]
    fn refusal_texts() {
        let refuse = |policy, s: &str| allows(policy, s.parse().unwrap()).unwrap_err().to_string();
        assert_eq!(
            refuse(TargetPolicy::PublicHttps, "169.254.169.254"),
            "url: 169.254.169.254 is a link-local address (169.254.0.0/16, which holds the \
             cloud instance metadata service); webhooks must be public"
        );
        assert_eq!(
            refuse(TargetPolicy::PublicHttps, "::ffff:127.0.0.1"),
            "url: ::ffff:127.0.0.1 is an IPv4-mapped loopback address (::ffff:0:0/96 carrying \
             127.0.0.0/8); webhooks must be public"
        );
        assert_eq!(
            refuse(TargetPolicy::Loopback, "10.0.0.1"),
            "url: 10.0.0.1 is a private address (10.0.0.0/8); webhooks must be public or \
             loopback (other addresses are allowed only with --push-allow-insecure-targets)"
        );
        assert_eq!(
            refuse(TargetPolicy::PublicHttps, "0.0.0.0"),
            "url: 0.0.0.0 is an unspecified address (0.0.0.0/32); webhooks must be public"
        );
        assert_eq!(
            refuse(TargetPolicy::PublicHttps, "fc00::1"),
            "url: fc00::1 is a unique-local address (fc00::/7, which holds the cloud instance \
             metadata service's IPv6 address); webhooks must be public"
        );
    }

    #[test]
    fn url_forms() {
        let form = |s: &str| check_url_form(s, TargetPolicy::PublicHttps).map(|(_, d)| d);
        assert_eq!(
            form("http://example.com/"),
            Err(TargetError::InsecureScheme)
        );
        assert_eq!(
            form("ftp://example.com/"),
            Err(TargetError::UnsupportedScheme("ftp".into()))
        );
        assert_eq!(
            form("/relative"),
            Err(TargetError::NotAbsolute(
                "relative URL without a base".into()
            ))
        );
        assert_eq!(form("https://u:p@example.com/"), Err(TargetError::Userinfo));
        assert_eq!(form("https://u@example.com/"), Err(TargetError::Userinfo));
        assert_eq!(
            form("https://Example.COM/hook?x=1"),
            Ok(Destination::Name("example.com".into(), 443))
        );
        assert_eq!(
            form("https://example.com:8443/"),
            Ok(Destination::Name("example.com".into(), 8443))
        );
        // Every IPv4 spelling is an address to the URL parser, and so checked as one.
        for sneaky in [
            "https://0x7f.1/",
            "https://2130706433/",
            "https://0177.0.0.1/",
        ] {
            assert!(
                matches!(
                    form(sneaky),
                    Err(TargetError::NotAllowed {
                        class: "loopback",
                        ..
                    })
                ),
                "{sneaky}"
            );
        }
        assert_eq!(
            form("https://[2606:4700:4700::1111]/"),
            Ok(Destination::Address(
                "2606:4700:4700::1111".parse().unwrap()
            ))
        );
    }

    #[test]
    fn policy_names() {
        for policy in [
            TargetPolicy::PublicHttps,
            TargetPolicy::Loopback,
            TargetPolicy::AllowPrivate,
        ] {
            assert_eq!(policy.to_string().parse::<TargetPolicy>(), Ok(policy));
        }
        assert!("public".parse::<TargetPolicy>().is_err());
        assert_eq!(
            TargetPolicy::from_env_flag(true),
            TargetPolicy::AllowPrivate
        );
        assert_eq!(
            TargetPolicy::from_env_flag(false),
            TargetPolicy::PublicHttps
        );
        assert_eq!(TargetPolicy::default(), TargetPolicy::PublicHttps);
    }

    #[tokio::test]
    async fn localhost_resolves_to_loopback() {
        let err = check_url("https://localhost/hook", TargetPolicy::PublicHttps)
            .await
            .unwrap_err();
        let TargetError::NotAllowed { host, class, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(host.as_deref(), Some("localhost"));
        assert_eq!(*class, "loopback");
        assert!(
            err.to_string()
                .starts_with("url: localhost resolves to a loopback address ("),
            "{err}"
        );
        assert!(
            check_url("http://localhost:9/hook", TargetPolicy::Loopback)
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn unresolvable_name() {
        let err = check_url("https://example.invalid/", TargetPolicy::PublicHttps).await;
        assert!(
            matches!(
                &err,
                Err(TargetError::Unresolvable(_) | TargetError::ResolveTimeout { .. })
            ),
            "{err:?}"
        );
        assert!(!err.unwrap_err().is_refusal());
    }
}
