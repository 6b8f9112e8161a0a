//! Packets live in an arena and travel through the simulator as `u32` indices.

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

#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    /// Unique per run, in creation order.
    pub id: u64,
    /// Index of the flow that created it.
    pub flow: u32,
    pub src: u32,
    pub dst: u32,
    /// Size on the wire in bytes.
    pub size: u32,
    pub ecn: Ecn,
    /// DiffServ precedence (0..=7) and colour set by markers.
    pub precedence: u8,
    pub colour: Colour,
    /// When the source created it, and when it entered its current queue.
    pub created: Time,
    pub enqueued: Time,
    /// Transport sequence number (packets for UDP, segments for TCP).
    pub seq: u64,
    /// A TCP acknowledgement (travels from the flow's destination back to its source).
    pub is_ack: bool,
    /// TCP Congestion Window Reduced flag on data.
    pub cwr: bool,
    /// Sent by a UDP source: unresponsive to loss (URIO drops a greedy aggregate's UDP
    /// packets outright). One byte in what was padding: `Packet` keeps its size.
    pub udp: bool,
    /// TCP acknowledgement fields (meaningful when `is_ack`).
    pub ack: crate::tcp::Ack,
}

/// A slab of packets with a free list: no allocation per packet in steady state.
#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    live: Vec<bool>,
    free: Vec<u32>,
    next_id: u64,
}

impl PacketArena {
    #[inline]
    pub fn alloc(&mut self, mut p: Packet) -> u32 {
        p.id = self.next_id;
        self.next_id += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = p;
                self.live[i as usize] = true;
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
                crate::mem::push(&mut self.live, true, "the packet arena");
                (self.slots.len() - 1) as u32
            }
        }
    }

    #[inline]
    pub fn free(&mut self, i: u32) {
        debug_assert!(self.live[i as usize], "double free of packet slot {i}");
        self.live[i as usize] = false;
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
        self.next_id
    }

    /// The live packets, in slot order: used by end-of-run conservation checks.
    pub fn live(&self) -> impl Iterator<Item = &Packet> {
        self.slots
            .iter()
            .zip(&self.live)
            .filter(|(_, l)| **l)
            .map(|(p, _)| p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused_and_ids_stay_unique() {
        let mut a = PacketArena::default();
        let x = a.alloc(Packet::default());
        let y = a.alloc(Packet::default());
        a.free(x);
        let z = a.alloc(Packet::default());
        assert_eq!(z, x);
        assert_eq!(a.get(z).id, 2);
        assert_eq!(a.get(y).id, 1);
        assert_eq!(a.live().count(), 2);
        assert_eq!(a.created(), 3);
    }

    /// Every event moves packets by index but the arena's slots are read on every hop:
    /// a new field must fit in padding (the `udp` flag did) or be a measured choice.
    #[test]
    fn a_packet_slot_stays_120_bytes() {
        assert_eq!(std::mem::size_of::<Packet>(), 120);
    }
}
