package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/internal/autotls"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/token"
)

const relayHelp = `usage: ptyhost relay --public-key FILE [flags]
       ptyhost relay --issuer-key FILE --authorized-keys FILE|DIR [flags]

Runs the reference relay of interactive-attach-v1: hosts dial out to it,
viewers and drivers dial in, at ws[s]://ADDR/v1/rooms/<sessionId>. Every leg
needs an attach token signed by the private half of one of the public keys
(ptyhost keygen, ptyhost token), or, in issuer mode, by the relay itself:
then the holders of the SSH keys in --authorized-keys share with
'ptyhost share --relay URL' and nothing else, and their guests join by
invite links (docs/relay.md, "Issuer mode"). Both modes may be on at once.
SIGTERM, SIGINT or SIGHUP drains it (in issuer mode SIGHUP instead rereads
the authorized keys and users file): new
dials get 503 with Retry-After, hosts are told to redial, viewers to
resume; then it says so and exits 0. Listening on every interface (:8722),
it prints a URL for this machine (localhost) and one for others (this
machine's name), since 0.0.0.0 or [::] is nothing to dial.

Flags:
  --listen ADDR            address to listen on (default 127.0.0.1:8722;
                           all interfaces only if you type it, e.g. :8722)
  --public-key FILE        a PEM public key tokens are checked with; repeat
                           it to accept several during a key rotation
  --issuer-key FILE        issuer mode: the relay's own signing key (a PEM
                           private key, ptyhost keygen)
  --authorized-keys FILE|DIR
                           issuer mode: the SSH keys that may share, in
                           OpenSSH authorized_keys form; the user's name is
                           each key's comment, or the file's name in a
                           directory of one file per user
  --users FILE             issuer mode: "SHA256:fingerprint name" lines
                           naming keys (they win over comments)
  --issuer-state FILE      issuer mode: keep rooms and invites in FILE, so
                           that links outlive a restart (default: memory; a
                           cluster keeps them in NATS)
  --tls-cert FILE          serve wss:// with this certificate (with --tls-key)
  --tls-key FILE           the certificate's private key
  --acme-domain NAME       serve wss:// with a certificate for NAME got and
                           renewed by ACME (Let's Encrypt); repeatable or
                           comma-separated. The CA checks the name on this
                           listener's TLS port, so a public relay gives
                           --listen :443 (the default stays loopback)
  --acme-cache DIR         where the account key, certificates and keys are
                           kept (default: ptyhost/acme in the user's cache
                           directory)
  --acme-email ADDR        contact the CA warns of expiring certificates
  --acme-directory URL     the CA's ACME directory (default Let's Encrypt's:
                           ` + autotls.LetsEncryptURL + `)
  --acme-http ADDR         also answer HTTP-01 challenges on ADDR (:80), and
                           redirect everything else there to https
  --allow-origin ORIGIN    a browser origin allowed besides the relay's own
                           (https://app.example.com); repeatable
  --ring-bytes N           frames kept per room for resumes (default 4194304)
  --history-dir DIR        keep each room's whole stream on disk under DIR,
                           so viewers can rewind and search it while the
                           room lives (default: none)
  --history-bytes N        each room's history at most N bytes, the oldest
                           part removed first (default 268435456)
  --keyframe-bytes N       output between the history's key frames
                           (default 1048576)
  --viewer-queue-bytes N   how far a viewer may lag before it is skipped to a
                           snapshot (default 1048576)
  --viewer-bytes-per-second R
                           cap on what one viewer is sent (default: none)
  --max-rooms N            rooms at once (default 10000)
  --max-viewers N          viewers per room (default 1000)
  --dials-per-second R     dials per client address (default 20)
  --max-conns N            connections open at once; past it they are reset
                           (default: the open-file limit less 64)
  --max-conns-per-addr N   connections open at once from one client address
                           (default 256)
  --idle-timeout D         close a keep-alive connection idle this long
                           (default 60s)
  --max-token-ttl D        refuse tokens whose exp is more than D after their
                           iat (default: no bound)
  --restart-after D        redial hint announced when draining (default 5s)
  --host-gone-after D      host absence before a room reports host-gone
                           (default 5m)
  --ended-for D            how long a room stays ended after Exit (default 10m)
  --record-dir DIR         record rooms whose host asks (share --relay-record)
                           as signed asciicast v3 files in DIR; see
                           docs/relay.md, "Recording"
  --record-all             record every room, whatever its host asks
  --record-key FILE        sign recordings with this private key (ptyhost
                           keygen); its public half is served at
                           /v1/recording-key for 'ptyhost verify --key'
  --record-max-age D       remove recordings older than D (default: keep)
  --record-max-bytes N     remove the oldest recordings while DIR holds more
                           than N bytes of them (default: no bound)
  --nats URL|embedded      join a cluster of relay nodes through NATS
                           (nats://HOST:PORT), or run its server in this
                           process (embedded); see docs/relay.md, "Cluster"
                           (embedded needs -tags ` + natsEmbeddedTag + `)
  --node NAME              this node's name in the cluster (default: random)
  --nats-listen ADDR       where --nats embedded listens (default
                           127.0.0.1:4222)
  --nats-store DIR         --nats embedded's JetStream store (default: a
                           temporary directory)
  --nats-cluster ADDR      make --nats embedded one server of a NATS cluster,
                           taking its peers' routes on ADDR (HOST:PORT)
  --nats-route URL         a route address of the cluster (nats://HOST:PORT,
                           each server's --nats-cluster); repeat it for each
                           server, this one's included
  --nats-replicas N        servers that keep the cluster's room ownership
                           (default 1; 3 with a three-server NATS cluster, so
                           that the relays survive the loss of any one)

Exit status: 0 after the drain a signal asked for (a server asked to stop
that stopped cleanly, as supervisors expect of SIGTERM); 2 for a usage
error; 125 when it cannot listen or fails.
`

// natsEmbeddedTag is the build tag that links nats-server into the binary
// for --nats embedded.
const natsEmbeddedTag = "ptyhost_natsembedded"

// errNoEmbeddedNATS is matched by the usage error of --nats embedded in a
// binary built without natsEmbeddedTag. It names both ways out.
var errNoEmbeddedNATS = errors.New("--nats embedded is not built into this binary: " +
	"build it with 'go build -tags " + natsEmbeddedTag + " ./cmd/ptyhost', " +
	"or run a nats-server and pass --nats nats://HOST:PORT")

// embeddedNATS is the NATS server --nats embedded runs in this process.
type embeddedNATS interface {
	ClientURL() string
	WaitCluster(ctx context.Context) error
	Close() error
}

// natsFlags are the flags of --nats embedded.
type natsFlags struct {
	listen, store string
	// cluster and routes make the embedded server one of a NATS cluster
	// (its route listener, the cluster's route addresses).
	cluster string
	routes  stringsFlag
}

// stringsFlag collects a repeatable flag's values.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

func relayCmd(ctx context.Context, args []string, _ io.Reader, stdout io.Writer) error {
	fs := newFlagSet("relay")
	var keys, origins stringsFlag
	opts := relay.ServeOptions{}
	var cfg relay.Config
	fs.StringVar(&opts.Addr, "listen", relay.DefaultAddr, "")
	fs.Var(&keys, "public-key", "")
	fs.StringVar(&opts.TLSCertFile, "tls-cert", "", "")
	fs.StringVar(&opts.TLSKeyFile, "tls-key", "", "")
	var acme acmeFlags
	acme.register(fs)
	fs.Var(&origins, "allow-origin", "")
	fs.Int64Var(&cfg.RingBytes, "ring-bytes", 0, "")
	fs.StringVar(&cfg.HistoryDir, "history-dir", "", "")
	fs.Int64Var(&cfg.HistoryBytes, "history-bytes", 0, "")
	fs.Int64Var(&cfg.KeyframeBytes, "keyframe-bytes", 0, "")
	fs.Int64Var(&cfg.ViewerQueueBytes, "viewer-queue-bytes", 0, "")
	fs.Float64Var(&cfg.ViewerBytesPerSecond, "viewer-bytes-per-second", 0, "")
	fs.IntVar(&cfg.MaxRooms, "max-rooms", 0, "")
	fs.IntVar(&cfg.MaxViewersPerRoom, "max-viewers", 0, "")
	fs.Float64Var(&cfg.DialsPerSecond, "dials-per-second", 0, "")
	fs.DurationVar(&cfg.RestartAfter, "restart-after", 0, "")
	fs.DurationVar(&cfg.MaxTokenTTL, "max-token-ttl", 0, "")
	fs.IntVar(&opts.MaxConns, "max-conns", 0, "")
	fs.IntVar(&opts.MaxConnsPerAddr, "max-conns-per-addr", 0, "")
	fs.DurationVar(&opts.IdleTimeout, "idle-timeout", 0, "")
	fs.DurationVar(&cfg.HostGoneAfter, "host-gone-after", 0, "")
	fs.DurationVar(&cfg.EndedFor, "ended-for", 0, "")
	var natsURL string
	var nf natsFlags
	fs.StringVar(&natsURL, "nats", "", "")
	fs.StringVar(&cfg.Node, "node", "", "")
	fs.StringVar(&nf.listen, "nats-listen", "127.0.0.1:4222", "")
	fs.StringVar(&nf.store, "nats-store", "", "")
	fs.StringVar(&nf.cluster, "nats-cluster", "", "")
	fs.Var(&nf.routes, "nats-route", "")
	fs.IntVar(&cfg.NATSReplicas, "nats-replicas", 0, "")
	var rec relayRecordFlags
	rec.register(fs)
	var isf issuerFlags
	fs.StringVar(&isf.key, "issuer-key", "", "")
	fs.StringVar(&isf.authorized, "authorized-keys", "", "")
	fs.StringVar(&isf.users, "users", "", "")
	fs.StringVar(&isf.state, "issuer-state", "", "")
	if err := parseFlags("relay", fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("relay", "unexpected argument %q", fs.Arg(0))
	}
	if natsURL == "embedded" && !natsEmbeddedBuilt {
		return &usageError{cmd: "relay", err: errNoEmbeddedNATS}
	}
	if len(keys) == 0 && isf.key == "" {
		return usagef("relay", "--public-key or --issuer-key is required")
	}
	if err := isf.configure(&cfg); err != nil {
		return err
	}
	if (opts.TLSCertFile == "") != (opts.TLSKeyFile == "") {
		return usagef("relay", "--tls-cert and --tls-key go together")
	}
	if err := acme.check(opts); err != nil {
		return err
	}
	if err := checkRelayLimits(fs, cfg); err != nil {
		return err
	}
	if err := rec.apply(&cfg); err != nil {
		return err
	}
	for _, k := range keys {
		pub, err := token.ReadPublicKeyFile(k)
		if err != nil {
			return usagef("relay", "--public-key %s: %v", k, err)
		}
		cfg.PublicKeys = append(cfg.PublicKeys, ed25519.PublicKey(pub))
	}
	cfg.AllowedOrigins = origins
	// The relay process's own /metrics also carries the Go runtime and
	// process collectors (go_memstats_heap_inuse_bytes and the like), so
	// an operator sees each node's memory. The relay package adds none
	// itself: embedded in another program they would be that program's.
	cfg.Metrics = prometheus.NewRegistry()
	cfg.Metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	cfg.Logger = slog.New(slog.NewTextHandler(stdout, nil))
	if natsURL != "" {
		nc, stop, err := joinNATS(ctx, natsURL, cfg.Node, nf, stdout)
		if err != nil {
			return err
		}
		defer stop()
		cfg.NATS = nc
	}
	opts.Ready = func(addr net.Addr, tls bool) {
		host, _ := os.Hostname()
		writeListening(stdout, addr, relay.DialURLs(addr, tls, host))
	}
	listenGiven := false
	fs.Visit(func(f *flag.Flag) { listenGiven = listenGiven || f.Name == "listen" })
	stopACME, err := acme.setup(ctx, &opts, cfg.Logger, stdout, listenGiven)
	if err != nil {
		return err
	}
	defer stopACME()
	if cfg.Issuer != nil {
		stop := isf.reloads(cfg.Logger)
		defer stop()
	}
	if err := relay.ListenAndServe(ctx, cfg, opts); err != nil {
		return err
	}
	// A server asked to stop that stopped cleanly exits 0, as supervisors
	// expect of SIGTERM; the line says why it stopped.
	var sig *signalError
	if errors.As(context.Cause(ctx), &sig) {
		fmt.Fprintf(stdout, "ptyhost relay: stopped by %s after draining\n", ptyhost.SignalName(sig.sig))
	}
	return nil
}

// writeListening prints the startup line: the URL to dial, or for a relay
// on every interface the URLs for this machine and for others.
func writeListening(w io.Writer, addr net.Addr, urls []relay.DialURL) {
	if len(urls) == 1 && urls[0].For == "" {
		fmt.Fprintf(w, "ptyhost relay listening on %s\n", urls[0].URL)
		return
	}
	_, port, _ := net.SplitHostPort(addr.String())
	fmt.Fprintf(w, "ptyhost relay listening on port %s of every interface:\n", port)
	for _, u := range urls {
		fmt.Fprintf(w, "  %s (%s)\n", u.URL, u.For)
	}
}

// checkRelayLimits refuses negative limits: zero means the default, a
// negative number is a typo.
func checkRelayLimits(fs *flag.FlagSet, cfg relay.Config) error {
	var bad string
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		if bad == "" && strings.HasPrefix(v, "-") {
			bad = f.Name
		}
	})
	if bad != "" {
		return usagef("relay", "--%s must not be negative", bad)
	}
	return nil
}

// A node finds its NATS connection dead by nats.go's pings: with its
// defaults (a ping each 2 minutes, two unanswered) a black-holed path
// would hold the node's rooms apart from the cluster for minutes. These
// find it in 15 to 20 s, within the relay's own silence rule for legs
// (25 s), after which the client reconnects.
const (
	natsPingInterval = 5 * time.Second
	natsMaxPingsOut  = 3
)

// joinNATS connects to the cluster's NATS server at url, or with
// "embedded" first starts one in this process on listen; stop closes the
// connection and then the embedded server.
func joinNATS(ctx context.Context, url, node string, nf natsFlags, stdout io.Writer) (*nats.Conn, func(), error) {
	var emb embeddedNATS
	if url == "embedded" {
		var err error
		if emb, err = startEmbeddedNATS(nf, node); err != nil {
			return nil, nil, fmt.Errorf("relay: --nats embedded: %w", err)
		}
		if nf.cluster != "" {
			fmt.Fprintf(stdout, "ptyhost relay: embedded NATS waiting for its cluster's JetStream leader\n")
			wait, cancel := context.WithTimeout(ctx, 2*time.Minute)
			err := emb.WaitCluster(wait)
			cancel()
			if err != nil {
				emb.Close()
				return nil, nil, fmt.Errorf("relay: --nats embedded: %w (are the --nats-route peers up?)", err)
			}
		}
		url = emb.ClientURL()
		fmt.Fprintf(stdout, "ptyhost relay: embedded NATS at %s\n", url)
	}
	nc, err := nats.Connect(url, nats.Name("ptyhost relay"), nats.MaxReconnects(-1),
		nats.PingInterval(natsPingInterval), nats.MaxPingsOutstanding(natsMaxPingsOut))
	if err != nil {
		if emb != nil {
			emb.Close()
		}
		return nil, nil, fmt.Errorf("relay: nats %s: %w", url, err)
	}
	return nc, func() {
		nc.Close()
		if emb != nil {
			emb.Close()
		}
	}, nil
}
