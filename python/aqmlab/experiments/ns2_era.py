"""ns-2.26 as aqmlab expresses it, shared by the reproductions of papers run on it (PSAND,
BIO, URIO): profile "ns2-2001" (ns-2.1b8a) plus the defaults that changed before 2.26
(the sources are in docs/profiles.md). Each reproduction prints the list it uses."""

# The base profile; the fields below override it where 2.26 differs.
PROFILE = "ns2-2001"
# Agent/TCP useHeaders_ true (2001-11-28): packetSize_ + 40 B of TCP/IP header on the wire.
HEADER = 40
# tcpTick_ 0.01 (from 0.1 on 2002-03-07) and singledup_ 1 (limited transmit, 2001-11-28).
TCP_NS226 = {"granularity": "10ms", "limited_transmit": True}
