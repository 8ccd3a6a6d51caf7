// Package natsembed runs a NATS server with JetStream inside the calling
// process: the seed of a relay cluster (`ptyhost relay --nats embedded`,
// in a binary built with -tags ptyhost_natsembedded) and the server the
// relay's cluster tests start on loopback.
//
// It is a package of its own so that linking nats-server is a choice:
// package relay talks to NATS through the client (nats.go) only, and a
// program that serves rooms, or runs sessions, without an in-process
// server does not carry it. The cost it avoids is not the binary's size:
// nats-server's server/pse package arms, in its init on Linux, a one
// second timer that re-arms for the life of the process, and with a timer
// always pending Go's idle threads wait in epoll_pwait instead of on a
// futex. A PTY firehose then costs about 14% more CPU (docs/performance.md,
// "The ptyhost command and nats-server"). Importing this package, even
// without calling it, brings that timer in.
//
// The server listens on the address given to Start (loopback in tests;
// port 0 picks a free one) with no authentication, logs nothing, and
// ignores signals: the embedding program owns its lifetime through Close.
//
// Concurrency: a *Server is safe for concurrent use. Close is idempotent
// and returns once the server has shut down and its temporary store, if
// Start made one, is removed.
package natsembed
