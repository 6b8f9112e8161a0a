//! Packets live in an arena and travel through the simulator as `u32` indices.

use crate::routing::At;
use crate::units::Time;

/// The two ECN bits of the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct = 0,
    Ect1 = 1,
    Ect0 = 2,
    Ce = 3,
}

impl Ecn {
    #[inline]
    pub fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
}

/// DiffServ colour for two- and three-colour markers (green = IN / low drop precedence).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Colour {
    #[default]
    Green = 0,
    Yellow = 1,
    Red = 2,
}

impl Colour {
    pub const ALL: [Colour; 3] = [Colour::Green, Colour::Yellow, Colour::Red];

    pub fn name(self) -> &'static str {
        match self {
            Colour::Green => "green",
            Colour::Yellow => "yellow",
            Colour::Red => "red",
        }
    }
}

/// A packet: one cache line (`repr(C)`, 64 bytes, aligned to a line), all that a hop
/// reads and writes (routing, admission, the sojourn clock, loss on the wire) and what its
/// delivery reads. An acknowledgement's SACK blocks wait in the arena beside it
/// (`PacketArena::alloc_ack`), read only where it is delivered.
///
/// One line, not two (issue 15): the second line of a 128-byte slot, the SACK blocks,
/// was read by no hop, yet the hardware fetched it with the first (it loads a line's
/// 128-byte neighbour): at 10 000 flows the 120 000 packets in flight then filled twice the
/// cache they use. `a_packet_is_one_line` checks the size.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub struct Packet {
    /// Index of the flow that created it.
    pub flow: u32,
    pub src: u32,
    pub dst: u32,
    /// Size on the wire in bytes.
    pub size: u32,
    /// When it entered its current queue, and when the source created it.
    pub enqueued: Time,
    pub created: Time,
    /// Its destination's routing entry (`Routes::at`), written by whoever creates it: a
    /// router's hop reads it here, in the line it reads anyway, not in the routing table
    /// (a random line of 160 KB a hop at 20 000 nodes).
    pub to: At,
    /// Transport sequence number (packets for UDP, segments for TCP); an acknowledgement's
    /// cumulative ACK (the next segment expected).
    pub seq: u64,
    pub ecn: Ecn,
    /// DiffServ precedence (0..=7) and colour set by markers.
    pub precedence: u8,
    pub colour: Colour,
    /// A TCP acknowledgement (travels from the flow's destination back to its source).
    pub is_ack: bool,
    /// TCP Congestion Window Reduced flag on data.
    pub cwr: bool,
    /// Sent by a UDP source: unresponsive to loss (URIO drops a greedy aggregate's UDP
    /// packets outright).
    pub udp: bool,
    /// An acknowledgement's ECN-Echo, and how many SACK blocks it carries (`sack` names
    /// them); written by `PacketArena::alloc_ack`.
    pub ece: bool,
    pub nsack: u8,
    /// The packet behind this one in its queue's FIFO (`PacketList`), in the line a hop
    /// reads anyway; written by the list, meaningless outside one.
    pub next: u32,
    /// Where the arena keeps an acknowledgement's SACK blocks, when `nsack` > 0; written by
    /// `PacketArena::alloc_ack`, meaningless otherwise.
    pub sack: u32,
}

/// `Packet::flow` of a freed slot.
const FREED: u32 = u32::MAX;

type SackBlocks = [(u64, u64); crate::tcp::MAX_SACK_BLOCKS];

/// A slab of packets with a free list: no allocation per packet in steady state.
#[derive(Default)]
pub struct PacketArena {
    /// A freed slot's packet has `flow` = `FREED` (no flow has that index): whether a slot
    /// is live is read in the line its packet was just read from, not in a table of its
    /// own (at 10 000 flows another random line per allocation and per free).
    slots: Vec<Packet>,
    free: Vec<u32>,
    /// Packets created so far.
    created: u64,
    /// The SACK blocks of the acknowledgements alive that carry any (`Packet::sack`), with
    /// a free list of their own: a run without SACK never touches them.
    sacks: Vec<SackBlocks>,
    free_sacks: Vec<u32>,
}

impl PacketArena {
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        debug_assert_ne!(p.flow, FREED, "flow index {FREED} marks a freed slot");
        self.created += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                i
            }
            None => {
                if self.slots.len() >= crate::mem::MAX_LIVE_PACKETS {
                    crate::mem::exhausted(format!(
                        "more than {} packets alive at once: a buffer is fed faster than it \
                         drains and holds more than memory allows (lower limit_pkts / \
                         limit_bytes, or the offered load)",
                        crate::mem::MAX_LIVE_PACKETS
                    ));
                }
                crate::mem::push(&mut self.slots, p, "the packet arena");
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Allocates `p` as the acknowledgement `ack`: its cumulative ACK in `seq`, its
    /// ECN-Echo and SACK blocks where `ack` (`PacketArena::ack`) finds them.
    #[inline]
    pub fn alloc_ack(&mut self, mut p: Packet, ack: &crate::tcp::Ack) -> u32 {
        p.is_ack = true;
        p.seq = ack.ack;
        p.ece = ack.ece;
        p.nsack = ack.nsack;
        p.sack = 0;
        if ack.nsack > 0 {
            p.sack = match self.free_sacks.pop() {
                Some(j) => {
                    self.sacks[j as usize] = ack.sack;
                    j
                }
                None => {
                    crate::mem::push(&mut self.sacks, ack.sack, "the packet arena");
                    (self.sacks.len() - 1) as u32
                }
            };
        }
        self.alloc(p)
    }

    /// The acknowledgement packet `i` carries (see `alloc_ack`).
    #[inline]
    pub fn ack(&self, i: u32) -> crate::tcp::Ack {
        let p = &self.slots[i as usize];
        debug_assert!(p.is_ack, "packet slot {i} is not an acknowledgement");
        let mut a = crate::tcp::Ack {
            ack: p.seq,
            ece: p.ece,
            nsack: p.nsack,
            ..Default::default()
        };
        if p.nsack > 0 {
            a.sack = self.sacks[p.sack as usize];
        }
        a
    }

    #[inline]
    pub fn free(&mut self, i: u32) {
        let p = &mut self.slots[i as usize];
        debug_assert_ne!(p.flow, FREED, "double free of packet slot {i}");
        p.flow = FREED;
        if p.is_ack && p.nsack > 0 {
            self.free_sacks.push(p.sack);
        }
        self.free.push(i);
    }

    #[inline]
    pub fn get(&self, i: u32) -> &Packet {
        &self.slots[i as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut Packet {
        &mut self.slots[i as usize]
    }

    /// Packets created so far.
    pub fn created(&self) -> u64 {
        self.created
    }

    /// The live packets, in slot order: used by end-of-run conservation checks.
    pub fn live(&self) -> impl Iterator<Item = &Packet> {
        self.slots.iter().filter(|p| p.flow != FREED)
    }
}

/// A FIFO of packets threaded through their slots' `next` (an intrusive list): a queue
/// holds two indices instead of a ring buffer of its own. At 10 000 flows a ring was
/// another heap block per access link, a line that a packet's passage missed in cache
/// (issue 15); a packet's `next` lies in the line its passage reads anyway.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketList {
    head: u32,
    tail: u32,
}

const NIL: u32 = u32::MAX;

impl Default for PacketList {
    fn default() -> Self {
        PacketList {
            head: NIL,
            tail: NIL,
        }
    }
}

impl PacketList {
    #[inline]
    pub fn front(&self) -> Option<u32> {
        (self.head != NIL).then_some(self.head)
    }

    #[inline]
    pub fn push_back(&mut self, i: u32, pkts: &mut PacketArena) {
        pkts.get_mut(i).next = NIL;
        match self.tail {
            NIL => self.head = i,
            t => pkts.get_mut(t).next = i,
        }
        self.tail = i;
    }

    #[inline]
    pub fn pop_front(&mut self, pkts: &PacketArena) -> Option<u32> {
        let i = self.front()?;
        self.head = pkts.get(i).next;
        if self.head == NIL {
            self.tail = NIL;
        }
        Some(i)
    }

    /// The packets from front to back.
    pub fn iter<'a>(&self, pkts: &'a PacketArena) -> impl Iterator<Item = u32> + 'a {
        std::iter::successors(self.front(), move |&i| {
            let n = pkts.get(i).next;
            (n != NIL).then_some(n)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list against `VecDeque` on random pushes and pops, with other packets' slots
    /// allocated and freed in between (a slot's `next` is rewritten when it re-enters).
    #[test]
    fn packet_list_is_a_fifo() {
        let mut rng = crate::rng::Rng::for_component(3, 0, "test");
        let mut a = PacketArena::default();
        let (mut l, mut model) = (PacketList::default(), std::collections::VecDeque::new());
        for _ in 0..10_000 {
            if rng.uniform() < 0.55 {
                let i = a.alloc(Packet::default());
                l.push_back(i, &mut a);
                model.push_back(i);
            } else {
                let got = l.pop_front(&a);
                assert_eq!(got, model.pop_front());
                if let Some(i) = got {
                    a.free(i);
                }
            }
            assert_eq!(l.front(), model.front().copied());
            if model.len() < 5 {
                assert!(l.iter(&a).eq(model.iter().copied()));
            }
        }
        assert!(l.iter(&a).eq(model.iter().copied()));
    }

    #[test]
    fn freed_slots_are_reused_and_creations_counted() {
        let mut a = PacketArena::default();
        let x = a.alloc(Packet::default());
        let y = a.alloc(Packet {
            seq: 1,
            ..Packet::default()
        });
        a.free(x);
        let z = a.alloc(Packet {
            seq: 2,
            ..Packet::default()
        });
        assert_eq!(z, x);
        assert_eq!(a.get(z).seq, 2);
        assert_eq!(a.get(y).seq, 1);
        assert_eq!(a.live().count(), 2);
        assert_eq!(a.created(), 3);
    }

    /// Every event moves packets by index, and the arena's slots are read on every hop: a
    /// packet is one line (a new field must fit in padding, or be a measured choice).
    #[test]
    fn a_packet_is_one_line() {
        use std::mem::{align_of, size_of};
        assert_eq!((size_of::<Packet>(), align_of::<Packet>()), (64, 64));
    }

    /// An acknowledgement reads back as it was sent, SACK blocks included, and the blocks'
    /// slots are reused once their packets are freed; one without blocks takes none.
    #[test]
    fn acknowledgements_round_trip() {
        use crate::tcp::Ack;
        let mut a = PacketArena::default();
        let with = |ack: u64, blocks: &[(u64, u64)]| {
            let mut x = Ack {
                ack,
                ece: ack % 2 == 1,
                nsack: blocks.len() as u8,
                ..Default::default()
            };
            x.sack[..blocks.len()].copy_from_slice(blocks);
            x
        };
        let acks = [
            with(7, &[(9, 11)]),
            with(8, &[]),
            with(3, &[(5, 6), (8, 10), (12, 20)]),
        ];
        let ids: Vec<u32> = (acks.iter())
            .map(|x| a.alloc_ack(Packet::default(), x))
            .collect();
        for (&i, x) in ids.iter().zip(&acks) {
            assert_eq!(a.ack(i), *x);
            assert_eq!((a.get(i).seq, a.get(i).is_ack), (x.ack, true));
        }
        assert_eq!(a.sacks.len(), 2, "an ACK without blocks takes no slot");
        a.free(ids[0]);
        let again = a.alloc_ack(Packet::default(), &with(12, &[(14, 15), (17, 18)]));
        assert_eq!(a.sacks.len(), 2, "a freed slot is reused");
        assert_eq!(a.ack(again), with(12, &[(14, 15), (17, 18)]));
        assert_eq!(a.ack(ids[2]), acks[2], "reuse leaves the others alone");
    }
}
