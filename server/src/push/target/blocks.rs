//! The non-public address blocks: the IPv4 and IPv6 special-purpose tables the SSRF guard
//! checks an address against (RFC 6890 and the IANA registries; see the
//! [parent module](super)), and the IPv6 forms that carry an IPv4 address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A non-public block: its class and the range as the registry writes it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Block {
    pub(super) class: &'static str,
    range: &'static str,
    /// The IPv6 form that carried an IPv4 address of this block, if any.
    carrier: Option<&'static str>,
    pub(super) loopback: bool,
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

    pub(super) fn range_text(&self) -> String {
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

/// The block of a non-public address, or `None` for a public one.
pub(super) fn block(ip: IpAddr) -> Option<Block> {
    match ip {
        IpAddr::V4(v4) => v4_block(v4).map(|(class, range)| Block::v4(class, range)),
        IpAddr::V6(v6) => v6_block(v6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(ip: &str) -> Option<&'static str> {
        block(ip.parse().unwrap()).map(|b| b.class)
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
}
