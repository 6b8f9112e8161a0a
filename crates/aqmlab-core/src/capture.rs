//! Packet capture: the packets a captured link direction starts to transmit, as a pcap file
//! in memory (`scenario/capture.rs` says which directions, windows and snapshot lengths).
//!
//! The file is the classic pcap format with nanosecond timestamps (magic 0xa1b23c4d,
//! little-endian, written by the `pcap-file` crate) and link type 101 (`LINKTYPE_RAW`: each
//! record starts with an IPv4 header). The engine's packets have no headers, so each record
//! is synthesised (with `etherparse`, which also computes the checksums):
//!
//! * IPv4: node n is 10.0.0.0 + n + 1 (`address`: node 0 is 10.0.0.1, node 256 is
//!   10.0.1.1); TOS = DiffServ precedence as a class selector (precedence << 5) and the ECN
//!   field (Not-ECT, ECT(0), ECT(1), CE); DF set, identification 0 (RFC 6864), TTL 64.
//! * TCP: the data sender's port is `port(flow index)`, the receiver's `DATA_PORT`. The
//!   engine numbers segments from 0; byte sequence numbers are 1 + segment x MSS, MSS being
//!   the flow's `packet_size` - 40 (the headers): both ends' initial sequence number is 0,
//!   as if after a handshake that is not captured. Data carries ACK = 1 and CWR when the
//!   sender sets it; an acknowledgement carries seq = 1, ACK = 1 + next segment x MSS, ECE,
//!   and its SACK blocks ([start, end) in segments, in bytes the same way) as NOP, NOP,
//!   SACK options. Window 65535, no other options.
//! * UDP: source port `port(flow index)`, destination `DATA_PORT`.
//! * Lengths: a data packet's or datagram's IPv4 total length is its simulated size (at
//!   least its headers); an acknowledgement is headers only (40 bytes, plus 12, 20 or 28
//!   with SACK blocks), whatever its `ack_size`. Payload bytes are zeros; the checksums
//!   cover the whole packet, kept or not.
//!
//! Timestamp: when the packet's first bit goes onto the wire (transmission start, after
//! its queueing delay), the packet as its queue let it go (a mark by the queue included);
//! the wire's loss model acts after (a packet it loses is captured; a scripted wire mark
//! is not seen). Captured bytes count towards `crate::mem::MAX_CAPTURE_BYTES`; the run
//! stops beyond it.

use crate::link::Channel;
use crate::packet::{Packet, PacketArena};
use crate::scenario::{CaptureAt, Scenario, Traffic};
use crate::tcp::Ack;
use crate::units::Time;
use etherparse::{IpDscp, IpEcn, IpNumber, Ipv4Header, TcpHeader, TcpOptionElement, UdpHeader};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};

/// The receiver's port of every flow (iperf's).
pub const DATA_PORT: u16 = 5001;
/// IPv4 header and TCP header without options.
const HEADERS: u32 = 40;
const NO_CAPTURE: u32 = u32::MAX;
/// The payload checksummed but not kept: zeros, as long as the longest packet.
static ZEROS: [u8; crate::check::MAX_PACKET as usize] = [0; crate::check::MAX_PACKET as usize];

/// Node `n`'s IPv4 address: 10.0.0.0 + n + 1 (validation keeps n + 1 below 2^24).
pub fn address(node: u32) -> [u8; 4] {
    (0x0a00_0000 + node + 1).to_be_bytes()
}

/// Flow `f`'s port at its source: 1024 + f mod 64 512 (unique up to 64 512 flows).
pub fn port(flow: u32) -> u16 {
    (1024 + flow % 64_512) as u16
}

/// One captured link direction's file, as a run returns it (`Debug` shows the file's size,
/// not its bytes).
#[derive(Clone, PartialEq, Eq)]
pub struct CaptureOutput {
    /// The queue's name, "from->to".
    pub name: String,
    pub link: String,
    pub from: String,
    pub to: String,
    /// Packets recorded.
    pub packets: u64,
    /// The pcap file.
    pub pcap: Vec<u8>,
}

impl std::fmt::Debug for CaptureOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaptureOutput")
            .field("name", &self.name)
            .field("link", &self.link)
            .field("packets", &self.packets)
            .field("pcap_bytes", &self.pcap.len())
            .finish()
    }
}

/// A pcap file growing in memory; a failed allocation ends the run (`crate::mem`).
struct Buf(Vec<u8>);

impl std::io::Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.0.capacity() - self.0.len() < b.len() {
            let more = b.len().max(self.0.capacity()).max(4096);
            if let Err(e) = self.0.try_reserve(more) {
                crate::mem::exhausted(format!("out of memory growing a packet capture ({e})"));
            }
        }
        self.0.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct One {
    at: CaptureAt,
    packets: u64,
    writer: PcapWriter<Buf>,
}

/// The captures of a run: which channels, their files, the bytes written so far.
pub struct Captures {
    /// Each channel's index in `list`, or `NO_CAPTURE`.
    by_channel: Vec<u32>,
    list: Vec<One>,
    /// Each flow's MSS (its data segments' payload bytes; 0 for open-loop flows).
    mss: Vec<u32>,
    bytes: u64,
    /// `crate::mem::MAX_CAPTURE_BYTES` (smaller in the tests).
    limit: u64,
    frame: Vec<u8>,
}

impl Captures {
    /// The captures of `s` over its `channels` channels; `None` if it captures nothing.
    pub fn new(s: &Scenario, at: Vec<CaptureAt>, channels: usize) -> Option<Box<Captures>> {
        if at.is_empty() {
            return None;
        }
        let mut by_channel = vec![NO_CAPTURE; channels];
        let list = (at.into_iter().enumerate())
            .map(|(i, at)| {
                by_channel[at.channel] = i as u32;
                One {
                    writer: new_writer(at.snaplen),
                    at,
                    packets: 0,
                }
            })
            .collect();
        let mss = (s.flows.iter())
            .map(|f| match f.traffic {
                Traffic::Tcp(_) => (f.packet_size.0 as u32).saturating_sub(HEADERS).max(1),
                _ => 0,
            })
            .collect();
        Some(Box::new(Captures {
            by_channel,
            list,
            mss,
            bytes: 0,
            limit: crate::mem::MAX_CAPTURE_BYTES,
            frame: Vec::with_capacity(256),
        }))
    }

    /// Channel `c` starts to transmit packet `pkt` at `now`.
    #[inline(never)]
    pub fn on_tx(&mut self, c: usize, now: Time, pkt: u32, packets: &PacketArena) {
        let i = self.by_channel[c];
        if i == NO_CAPTURE {
            return;
        }
        let one = &mut self.list[i as usize];
        if now < one.at.start || now >= one.at.stop {
            return;
        }
        let p = packets.get(pkt);
        let ack = p.is_ack.then(|| packets.ack(pkt));
        let total = encode(p, ack.as_ref(), self.mss[p.flow as usize], &mut self.frame);
        self.frame.truncate(one.at.snaplen as usize);
        let kept = self.frame.len() as u64;
        self.bytes += 16 + kept;
        if self.bytes > self.limit {
            crate::mem::exhausted(format!(
                "the packet captures passed {} bytes (at {} on channel {c}): capture fewer \
                 links, a shorter start/stop window or a smaller snaplen",
                self.limit,
                crate::units::format_time(now),
            ));
        }
        let ts = std::time::Duration::from_nanos(now);
        let record = PcapPacket::new(ts, total, &self.frame);
        one.writer
            .write_packet(&record)
            .expect("a record within the snaplen writes to memory");
        one.packets += 1;
    }

    /// The files, in channel order, named after `s`'s links and nodes.
    pub fn finish(self, s: &Scenario, channels: &[Channel]) -> Vec<CaptureOutput> {
        (self.list.into_iter())
            .map(|one| {
                let ch = &channels[one.at.channel];
                let from = s.nodes[ch.from as usize].name.clone();
                let to = s.nodes[ch.to as usize].name.clone();
                CaptureOutput {
                    name: format!("{from}->{to}"),
                    link: s.link_label(ch.link as usize),
                    from,
                    to,
                    packets: one.packets,
                    pcap: one.writer.into_writer().0,
                }
            })
            .collect()
    }
}

fn new_writer(snaplen: u32) -> PcapWriter<Buf> {
    let header = PcapHeader {
        version_major: 2,
        version_minor: 4,
        ts_correction: 0,
        ts_accuracy: 0,
        snaplen,
        datalink: DataLink::RAW,
        ts_resolution: TsResolution::NanoSecond,
        // Fixed, not the machine's: the same run gives the same bytes everywhere.
        endianness: Endianness::Little,
    };
    PcapWriter::with_header(Buf(Vec::new()), header).expect("a header writes to memory")
}

/// Byte sequence number of segment `seg` (see the module doc), modulo 2^32.
fn byte_seq(seg: u64, mss: u32) -> u32 {
    seg.wrapping_mul(u64::from(mss)).wrapping_add(1) as u32
}

/// Writes packet `p`'s synthesised IPv4 packet into `out` (replacing what it held), the
/// payload as zeros, and returns its length; `ack` is its acknowledgement if it is one,
/// `mss` its flow's (`Captures::mss`).
pub fn encode(p: &Packet, ack: Option<&Ack>, mss: u32, out: &mut Vec<u8>) -> u32 {
    out.clear();
    let (src, dst) = (address(p.src), address(p.dst));
    let mut ip = Ipv4Header::new(0, 64, IpNumber::TCP, src, dst).expect("an empty payload fits");
    ip.dscp = IpDscp::try_new((p.precedence & 7) << 3).expect("a class selector is a DSCP");
    ip.ecn = IpEcn::try_new(p.ecn as u8).expect("the ECN field is two bits");
    let size = p.size.min(crate::check::MAX_PACKET as u32);
    if p.udp {
        ip.protocol = IpNumber::UDP;
        let payload = &ZEROS[..size.saturating_sub(28) as usize];
        ip.set_payload_len(8 + payload.len())
            .expect("a datagram fits");
        let udp = UdpHeader::with_ipv4_checksum(port(p.flow), DATA_PORT, &ip, payload)
            .expect("a datagram fits");
        ip.write(out).expect("a Vec takes any bytes");
        udp.write(out).expect("a Vec takes any bytes");
        out.extend_from_slice(payload);
        return ip.total_len.into();
    }
    let mut tcp = TcpHeader::new(port(p.flow), DATA_PORT, 1, 65_535);
    tcp.ack = true;
    let payload = match ack {
        None => {
            tcp.sequence_number = byte_seq(p.seq, mss);
            tcp.acknowledgment_number = 1;
            tcp.cwr = p.cwr;
            &ZEROS[..size.saturating_sub(HEADERS).max(1).min(mss) as usize]
        }
        Some(a) => {
            (tcp.source_port, tcp.destination_port) = (DATA_PORT, port(p.flow));
            tcp.acknowledgment_number = byte_seq(a.ack, mss);
            tcp.ece = a.ece;
            let blocks = a.sack_blocks();
            if let Some((&first, rest)) = blocks.split_first() {
                let bytes = |(l, r): (u64, u64)| (byte_seq(l, mss), byte_seq(r, mss));
                let mut more = [None; 3];
                for (m, &b) in more.iter_mut().zip(rest) {
                    *m = Some(bytes(b));
                }
                let sack = TcpOptionElement::SelectiveAcknowledgement(bytes(first), more);
                let opts = [TcpOptionElement::Noop, TcpOptionElement::Noop, sack];
                tcp.set_options(&opts).expect("three SACK blocks fit");
            }
            &ZEROS[..0]
        }
    };
    ip.set_payload_len(tcp.header_len() + payload.len())
        .expect("a segment fits");
    tcp.checksum = tcp
        .calc_checksum_ipv4(&ip, payload)
        .expect("a segment fits");
    ip.write(out).expect("a Vec takes any bytes");
    tcp.write(out).expect("a Vec takes any bytes");
    out.extend_from_slice(payload);
    ip.total_len.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;

    /// RFC 1071's one's-complement sum of 16-bit words, for checking, written apart from
    /// the encoder's.
    fn ones_sum(b: &[u8]) -> u16 {
        let mut s: u32 = 0;
        for w in b.chunks(2) {
            s += u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]));
        }
        while s > 0xffff {
            s = (s & 0xffff) + (s >> 16);
        }
        s as u16
    }

    /// A TCP or UDP packet's checksum verifies: the sum over the pseudo-header and the
    /// segment is 0xffff.
    fn transport_sums_ok(b: &[u8]) -> bool {
        let total = usize::from(u16::from_be_bytes([b[2], b[3]]));
        let mut pseudo = b[12..20].to_vec();
        pseudo.extend([0, b[9]]);
        pseudo.extend(((total - 20) as u16).to_be_bytes());
        pseudo.extend(&b[20..total]);
        ones_sum(&pseudo) == 0xffff
    }

    fn data(seq: u64, size: u32, ecn: Ecn) -> Packet {
        Packet {
            flow: 3,
            src: 0,
            dst: 5,
            size,
            seq,
            ecn,
            ..Default::default()
        }
    }

    /// The IPv4 header checksum of a known packet: the worked example of RFC 1071's sum over
    /// a 20-byte header, computed by hand for 10.0.0.1 -> 10.0.0.6, total length 1000,
    /// DF, TTL 64, TCP, TOS 0x02 (ECT(0)).
    #[test]
    fn ipv4_header_known_answer() {
        let mut b = vec![];
        let n = encode(&data(0, 1000, Ecn::Ect0), None, 960, &mut b);
        assert_eq!(n, 1000);
        assert_eq!(b.len(), 1000);
        assert_eq!(&b[..10], &[0x45, 0x02, 0x03, 0xe8, 0, 0, 0x40, 0, 64, 6]);
        // Words 4502 03e8 0000 4000 4006 0a00 0001 0a00 0006 sum to dcf7 (no carry): the
        // checksum is its complement.
        assert_eq!(u16::from_be_bytes([b[10], b[11]]), 0x2308);
        assert_eq!(ones_sum(&b[..20]), 0xffff);
        assert_eq!(&b[12..20], &[10, 0, 0, 1, 10, 0, 0, 6]);
    }

    #[test]
    fn data_segments_carry_byte_sequence_numbers_and_ecn() {
        let mut b = vec![];
        let mut p = data(7, 1000, Ecn::Ce);
        p.cwr = true;
        p.precedence = 2;
        encode(&p, None, 960, &mut b);
        assert_eq!(b[1], (2 << 5) | 3, "CS2 and CE");
        let tcp = &b[20..];
        assert_eq!(u16::from_be_bytes([tcp[0], tcp[1]]), port(3));
        assert_eq!(u16::from_be_bytes([tcp[2], tcp[3]]), DATA_PORT);
        assert_eq!(
            u32::from_be_bytes(tcp[4..8].try_into().unwrap()),
            1 + 7 * 960
        );
        assert_eq!(u32::from_be_bytes(tcp[8..12].try_into().unwrap()), 1);
        assert_eq!(tcp[12] >> 4, 5, "no options");
        assert_eq!(tcp[13], 0x80 | 0x10, "CWR and ACK");
        assert!(transport_sums_ok(&b));
    }

    #[test]
    fn acknowledgements_carry_sack_blocks_and_ece() {
        let p = Packet {
            flow: 3,
            src: 5,
            dst: 0,
            size: 40,
            is_ack: true,
            ..Default::default()
        };
        let mut a = Ack {
            ack: 4,
            ece: true,
            nsack: 2,
            ..Default::default()
        };
        a.sack[0] = (6, 8);
        a.sack[1] = (10, 11);
        let mut b = vec![];
        let n = encode(&p, Some(&a), 960, &mut b);
        assert_eq!(n, 40 + 20, "NOP NOP, kind 5 length 18");
        let tcp = &b[20..];
        assert_eq!(u16::from_be_bytes([tcp[0], tcp[1]]), DATA_PORT);
        assert_eq!(
            u32::from_be_bytes(tcp[8..12].try_into().unwrap()),
            1 + 4 * 960
        );
        assert_eq!(tcp[12] >> 4, 10, "data offset: 40 bytes");
        assert_eq!(tcp[13], 0x40 | 0x10, "ECE and ACK");
        assert_eq!(&tcp[20..24], &[1, 1, 5, 18]);
        let word = |i: usize| u32::from_be_bytes(tcp[i..i + 4].try_into().unwrap());
        assert_eq!(
            [word(24), word(28), word(32), word(36)],
            [1 + 6 * 960, 1 + 8 * 960, 1 + 10 * 960, 1 + 11 * 960]
        );
        assert!(transport_sums_ok(&b));
    }

    #[test]
    fn datagrams_are_udp_with_a_valid_checksum() {
        let mut p = data(0, 500, Ecn::NotEct);
        p.udp = true;
        let mut b = vec![];
        assert_eq!(encode(&p, None, 0, &mut b), 500);
        assert_eq!(b[9], 17);
        assert_eq!(u16::from_be_bytes([b[24], b[25]]), 480, "UDP length");
        assert!(transport_sums_ok(&b));
    }

    /// Past the byte bound the run ends with `ResourceExhausted`, naming what to change.
    #[test]
    fn captures_stop_at_their_byte_bound() {
        let s = crate::scenario::load(
            r#"
schema_version = 1
[simulation]
duration = "1s"
[[nodes]]
name = "a"
type = "host"
[[nodes]]
name = "b"
type = "host"
[[links]]
a = "a"
b = "b"
bandwidth = "1Mbps"
delay = "1ms"
queue = { limit_pkts = 10 }
capture = true
[[flows]]
name = "u"
type = "cbr"
src = "a"
dst = "b"
rate = "100kbps"
packet_size = 1000
"#,
        )
        .expect("valid");
        let at = s.captured(&s.link_ends());
        assert_eq!(at.len(), 2);
        let mut cap = Captures::new(&s, at, 2).expect("captures");
        cap.limit = 24 + 10 * (16 + 96);
        let mut arena = PacketArena::default();
        let pkt = arena.alloc(Packet {
            flow: 0,
            dst: 1,
            udp: true,
            ..data(0, 1000, Ecn::NotEct)
        });
        for t in 0..10 {
            cap.on_tx(0, t, pkt, &arena);
        }
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            cap.on_tx(1, 10, pkt, &arena)
        }));
        let payload = got.expect_err("the 11th record passes the bound");
        let r = payload
            .downcast_ref::<crate::mem::ResourceExhausted>()
            .expect("a ResourceExhausted");
        assert!(
            r.0.starts_with("the packet captures passed 1144 bytes"),
            "{r:?}"
        );
        assert!(r.0.contains("smaller snaplen"), "{r:?}");
    }

    #[test]
    fn addresses_and_ports_are_stable_and_distinct() {
        assert_eq!(address(0), [10, 0, 0, 1]);
        assert_eq!(address(255), [10, 0, 1, 0]);
        assert_eq!(address(70_000), [10, 1, 17, 113]);
        assert_eq!(port(0), 1024);
        assert_eq!(port(64_511), 65_535);
        assert_eq!(port(64_512), 1024);
    }
}
