// Package faultproxy is a test helper, in the spirit of net/http/httptest:
// a TCP proxy on a loopback port that forwards every connection to a target
// address and injects network faults when a test tells it to, so that
// reconnect paths (a relay restarting, a leg cut in the middle of a
// WebSocket frame, a stalled peer) are exercised deterministically instead
// of by chance.
//
// # Model
//
// New listens on 127.0.0.1 and returns a Proxy; clients dial Proxy.Addr
// instead of the target. Each accepted connection (a dial) is either
// answered by the proxy itself or forwarded, byte for byte, to the target.
// Two kinds of faults exist:
//
//   - Dial faults are queued and consumed by the next dials in order:
//     RefuseNext closes a dial at once with a TCP reset; Answer503Next reads
//     the HTTP request and answers "503 Service Unavailable", with a
//     Retry-After header when one is given, without reaching the target.
//   - RefuseUpgrades, while on, reads the first request head of each
//     dial and resets the dial when it asks for a WebSocket upgrade,
//     forwarding every other request: a path that breaks WebSocket only.
//   - Live faults act on forwarded connections: CutAfter closes every live
//     connection once exactly k more bytes have been forwarded in a
//     direction; CutMidFrame closes them inside the payload of the next
//     WebSocket frame (the proxy follows the HTTP upgrade and the frame
//     headers in each direction for this); Stall stops forwarding a
//     direction until Release; SetDelay holds every chunk of a direction
//     for a fixed time before forwarding it.
//
// A cut forwards exactly the bytes it promises, then half-closes the
// receiving side so they are delivered, then closes both sockets: the
// peer sees a truncated stream, never extra bytes. Stats reports what
// happened (dials, refusals, cuts, bytes forwarded each way) and Wait
// blocks until a condition on the Stats holds, so a test waits for an
// event instead of sleeping.
//
// # Concurrency
//
// A Proxy is safe for concurrent use. It owns one accept goroutine and, per
// forwarded connection, a handler and two pumps (one per direction); Close
// closes the listener and every connection and returns after all of them
// have exited. Close is idempotent.
//
// # Limits
//
// Forwarding reads chunks of up to 32 KiB. A request answered with 503 may
// carry at most 64 KiB of headers and must arrive within 10 s. The proxy
// never dials anything but its target.
package faultproxy
