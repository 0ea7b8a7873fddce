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

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::str::FromStr;
use std::time::Duration;

use url::{Host, Url};

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

/// A non-public block: its class and the range as the registry writes it.
#[derive(Debug, Clone, Copy)]
struct Block {
    class: &'static str,
    range: &'static str,
    /// The IPv6 form that carried an IPv4 address of this block, if any.
    carrier: Option<&'static str>,
    loopback: bool,
}

impl Block {
    const fn v4(class: V4Class, range: &'static str) -> Self {
        Self {
            class: class.text(),
            range,
            carrier: None,
            loopback: matches!(class, V4Class::Loopback),
        }
    }

    const fn v6(class: &'static str, range: &'static str) -> Self {
        Self {
            class,
            range,
            carrier: None,
            loopback: false,
        }
    }

    fn range_text(&self) -> String {
        match self.carrier {
            Some(carrier) => format!("{carrier} carrying {}", self.range),
            None => self.range.to_owned(),
        }
    }
}

/// The IPv6 forms that carry an IPv4 address.
#[derive(Debug, Clone, Copy)]
enum Carrier {
    /// `::ffff:0:0/96`, RFC 4291 §2.5.5.2.
    Mapped,
    /// `::/96`, RFC 4291 §2.5.5.1 (deprecated).
    Compatible,
    /// `64:ff9b::/96`, RFC 6052.
    Nat64,
    /// `2002::/16`, RFC 3056.
    SixToFour,
}

impl Carrier {
    const fn range(self) -> &'static str {
        match self {
            Self::Mapped => "::ffff:0:0/96",
            Self::Compatible => "::/96",
            Self::Nat64 => "64:ff9b::/96",
            Self::SixToFour => "2002::/16",
        }
    }
}

/// The IPv4 classes, with their names alone and carried in each IPv6 form (static text, so
/// [`address_class`] can answer `&'static str`).
macro_rules! v4_classes {
    ($($name:ident => $text:literal),* $(,)?) => {
        #[derive(Debug, Clone, Copy)]
        enum V4Class { $($name),* }

        impl V4Class {
            const fn text(self) -> &'static str {
                match self { $(Self::$name => $text),* }
            }

            const fn carried(self, carrier: Carrier) -> &'static str {
                match (carrier, self) {
                    $(
                        (Carrier::Mapped, Self::$name) => concat!("IPv4-mapped ", $text),
                        (Carrier::Compatible, Self::$name) => concat!("IPv4-compatible ", $text),
                        (Carrier::Nat64, Self::$name) => concat!("NAT64 ", $text),
                        (Carrier::SixToFour, Self::$name) => concat!("6to4 ", $text),
                    )*
                }
            }
        }
    };
}

v4_classes! {
    Unspecified => "unspecified",
    ThisNetwork => "this-network",
    Private => "private",
    Shared => "shared address space (CGNAT)",
    Loopback => "loopback",
    LinkLocal => "link-local",
    Protocol => "IETF protocol assignment",
    Documentation => "documentation",
    Relay => "deprecated 6to4 relay anycast",
    Benchmarking => "benchmarking",
    Multicast => "multicast",
    Broadcast => "broadcast",
    Reserved => "reserved",
}

/// Whether `ip` is in `base/len`.
const fn in_v4(ip: u32, base: [u8; 4], len: u32) -> bool {
    let base = u32::from_be_bytes(base);
    let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
    ip & mask == base & mask
}

/// Whether `ip` is in `base/len`.
const fn in_v6(ip: u128, base: u128, len: u32) -> bool {
    let mask = if len == 0 {
        0
    } else {
        u128::MAX << (128 - len)
    };
    ip & mask == base & mask
}

/// The block of a non-public IPv4 address (IANA IPv4 special-purpose registry, RFC 6890;
/// multicast from RFC 5771), most specific first.
fn v4_block(ip: Ipv4Addr) -> Option<(V4Class, &'static str)> {
    use V4Class::*;
    let n = u32::from(ip);
    let table: [(bool, V4Class, &'static str); 17] = [
        (n == 0, Unspecified, "0.0.0.0/32"),
        (in_v4(n, [0, 0, 0, 0], 8), ThisNetwork, "0.0.0.0/8"),
        (in_v4(n, [10, 0, 0, 0], 8), Private, "10.0.0.0/8"),
        (in_v4(n, [100, 64, 0, 0], 10), Shared, "100.64.0.0/10"),
        (in_v4(n, [127, 0, 0, 0], 8), Loopback, "127.0.0.0/8"),
        (
            in_v4(n, [169, 254, 0, 0], 16),
            LinkLocal,
            "169.254.0.0/16, which holds the cloud instance metadata service",
        ),
        (in_v4(n, [172, 16, 0, 0], 12), Private, "172.16.0.0/12"),
        (in_v4(n, [192, 0, 0, 0], 24), Protocol, "192.0.0.0/24"),
        (
            in_v4(n, [192, 0, 2, 0], 24),
            Documentation,
            "192.0.2.0/24, TEST-NET-1",
        ),
        (in_v4(n, [192, 88, 99, 0], 24), Relay, "192.88.99.0/24"),
        (in_v4(n, [192, 168, 0, 0], 16), Private, "192.168.0.0/16"),
        (in_v4(n, [198, 18, 0, 0], 15), Benchmarking, "198.18.0.0/15"),
        (
            in_v4(n, [198, 51, 100, 0], 24),
            Documentation,
            "198.51.100.0/24, TEST-NET-2",
        ),
        (
            in_v4(n, [203, 0, 113, 0], 24),
            Documentation,
            "203.0.113.0/24, TEST-NET-3",
        ),
        (in_v4(n, [224, 0, 0, 0], 4), Multicast, "224.0.0.0/4"),
        (n == u32::MAX, Broadcast, "255.255.255.255/32"),
        (in_v4(n, [240, 0, 0, 0], 4), Reserved, "240.0.0.0/4"),
    ];
    table
        .into_iter()
        .find(|(hit, _, _)| *hit)
        .map(|(_, class, range)| (class, range))
}

/// The block of a non-public IPv6 address (IANA IPv6 special-purpose registry, RFC 6890;
/// IPv6 address space registry for multicast, link-local, unique-local and the reserved
/// rest). `None` for a public one.
fn v6_block(ip: Ipv6Addr) -> Option<Block> {
    let n = u128::from(ip);
    if n == 0 {
        return Some(Block::v6("unspecified", "::/128"));
    }
    if n == 1 {
        return Some(Block {
            loopback: true,
            ..Block::v6("loopback", "::1/128")
        });
    }
    // The forms that carry an IPv4 address: judged by that address.
    let carried = if in_v6(n, 0xffff << 32, 96) {
        Some((Carrier::Mapped, n as u32))
    } else if in_v6(n, 0, 96) {
        Some((Carrier::Compatible, n as u32))
    } else if in_v6(n, 0x0064_ff9b << 96, 96) {
        Some((Carrier::Nat64, n as u32))
    } else if in_v6(n, 0x2002 << 112, 16) {
        Some((Carrier::SixToFour, (n >> 80) as u32))
    } else {
        None
    };
    if let Some((carrier, v4)) = carried {
        return match v4_block(Ipv4Addr::from(v4)) {
            Some((class, range)) => Some(Block {
                class: class.carried(carrier),
                range,
                carrier: Some(carrier.range()),
                loopback: matches!(class, V4Class::Loopback),
            }),
            // An IPv4-compatible address is deprecated even when what it carries is public.
            None if matches!(carrier, Carrier::Compatible) => Some(Block::v6(
                "reserved",
                "::/96, IPv4-compatible addresses, deprecated by RFC 4291",
            )),
            None => None,
        };
    }
    let table: [(u128, u32, &'static str, &'static str); 13] = [
        (
            0x0064_ff9b_0001 << 80,
            48,
            "private",
            "64:ff9b:1::/48, local-use IPv4/IPv6 translation",
        ),
        (0x0100 << 112, 64, "discard-only", "100::/64"),
        (0x2001_0002 << 96, 48, "benchmarking", "2001:2::/48"),
        (0x2001_0db8 << 96, 32, "documentation", "2001:db8::/32"),
        (0x2001 << 112, 32, "Teredo", "2001::/32"),
        (0x2001 << 112, 23, "IETF protocol assignment", "2001::/23"),
        (0x3fff << 112, 20, "documentation", "3fff::/20"),
        (
            0xfc00 << 112,
            7,
            "unique-local",
            "fc00::/7, which holds the cloud instance metadata service's IPv6 address",
        ),
        (0xfe80 << 112, 10, "link-local", "fe80::/10"),
        (0xfec0 << 112, 10, "site-local (deprecated)", "fec0::/10"),
        (0xff00 << 112, 8, "multicast", "ff00::/8"),
        (0x2000 << 112, 3, "", ""),
        (
            0,
            0,
            "reserved",
            "outside 2000::/3, the global unicast space",
        ),
    ];
    let (_, _, class, range) = table
        .into_iter()
        .find(|(base, len, _, _)| in_v6(n, *base, *len))?;
    // Inside 2000::/3 and in none of the blocks before it: global unicast.
    if class.is_empty() {
        return None;
    }
    Some(Block::v6(class, range))
}

fn block(ip: IpAddr) -> Option<Block> {
    match ip {
        IpAddr::V4(v4) => v4_block(v4).map(|(class, range)| Block::v4(class, range)),
        IpAddr::V6(v6) => v6_block(v6),
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
/// use a2a_server::push::target::address_class;
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
/// use a2a_server::push::target::{allows, TargetPolicy};
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
/// use a2a_server::push::target::{check_url, TargetPolicy};
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

    fn class(ip: &str) -> Option<&'static str> {
        address_class(ip.parse().unwrap())
    }

    #[test]
    fn ipv4_blocks() {
        let cases = [
            ("0.0.0.0", Some("unspecified")),
            ("0.1.2.3", Some("this-network")),
            ("10.1.2.3", Some("private")),
            ("100.64.0.1", Some("shared address space (CGNAT)")),
            ("100.127.255.255", Some("shared address space (CGNAT)")),
            ("100.128.0.1", None),
            ("127.0.0.1", Some("loopback")),
            ("127.255.255.254", Some("loopback")),
            ("169.254.169.254", Some("link-local")),
            ("172.15.255.255", None),
            ("172.16.0.1", Some("private")),
            ("172.31.255.255", Some("private")),
            ("172.32.0.1", None),
            ("192.0.0.8", Some("IETF protocol assignment")),
            ("192.0.2.1", Some("documentation")),
            ("192.88.99.1", Some("deprecated 6to4 relay anycast")),
            ("192.168.1.1", Some("private")),
            ("198.18.0.1", Some("benchmarking")),
            ("198.19.255.255", Some("benchmarking")),
            ("198.20.0.1", None),
            ("198.51.100.7", Some("documentation")),
            ("203.0.113.9", Some("documentation")),
            ("224.0.0.1", Some("multicast")),
            ("239.255.255.250", Some("multicast")),
            ("240.0.0.1", Some("reserved")),
            ("255.255.255.255", Some("broadcast")),
            ("8.8.8.8", None),
            ("1.1.1.1", None),
            ("93.184.215.14", None),
        ];
        for (ip, want) in cases {
            assert_eq!(class(ip), want, "{ip}");
        }
    }

    #[test]
    fn ipv6_blocks() {
        let cases = [
            ("::", Some("unspecified")),
            ("::1", Some("loopback")),
            ("fc00::1", Some("unique-local")),
            ("fd00:ec2::254", Some("unique-local")),
            ("fe80::1", Some("link-local")),
            ("febf::1", Some("link-local")),
            ("fec0::1", Some("site-local (deprecated)")),
            ("ff02::1", Some("multicast")),
            ("2001:db8::1", Some("documentation")),
            ("2001:2::1", Some("benchmarking")),
            ("2001::1", Some("Teredo")),
            ("2001:10::1", Some("IETF protocol assignment")),
            ("3fff::1", Some("documentation")),
            ("100::1", Some("discard-only")),
            ("64:ff9b:1::1", Some("private")),
            ("5f00::1", Some("reserved")),
            ("4000::1", Some("reserved")),
            ("::ffff:127.0.0.1", Some("IPv4-mapped loopback")),
            ("::ffff:169.254.169.254", Some("IPv4-mapped link-local")),
            ("::ffff:10.0.0.1", Some("IPv4-mapped private")),
            ("::ffff:8.8.8.8", None),
            ("::127.0.0.1", Some("IPv4-compatible loopback")),
            ("::8.8.8.8", Some("reserved")),
            ("64:ff9b::a00:1", Some("NAT64 private")),
            ("64:ff9b::7f00:1", Some("NAT64 loopback")),
            ("64:ff9b::808:808", None),
            ("2002:c0a8:0101::1", Some("6to4 private")),
            ("2002:0808:0808::1", None),
            ("2606:4700:4700::1111", None),
            ("2a00:1450:4001:81a::200e", None),
        ];
        for (ip, want) in cases {
            assert_eq!(class(ip), want, "{ip}");
        }
    }

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
