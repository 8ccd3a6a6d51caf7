package main

import (
	"flag"
	"time"

	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/token"
)

// relayRecordFlags are relay's recording flags (docs/relay.md,
// "Recording").
type relayRecordFlags struct {
	dir      string
	all      bool
	maxAge   time.Duration
	maxBytes int64
	key      string
}

func (f *relayRecordFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dir, "record-dir", "", "")
	fs.BoolVar(&f.all, "record-all", false, "")
	fs.DurationVar(&f.maxAge, "record-max-age", 0, "")
	fs.Int64Var(&f.maxBytes, "record-max-bytes", 0, "")
	fs.StringVar(&f.key, "record-key", "", "")
}

// apply checks the flags and fills cfg.Record.
func (f *relayRecordFlags) apply(cfg *relay.Config) error {
	if f.dir == "" {
		if f.all || f.maxAge != 0 || f.maxBytes != 0 || f.key != "" {
			return usagef("relay", "--record-all, --record-max-age, --record-max-bytes and --record-key need --record-dir")
		}
		return nil
	}
	if f.maxAge < 0 || f.maxBytes < 0 {
		return usagef("relay", "--record-max-age and --record-max-bytes must not be negative")
	}
	cfg.Record = relay.RecordConfig{Dir: f.dir, All: f.all, MaxAge: f.maxAge, MaxBytes: f.maxBytes}
	if f.key != "" {
		k, err := token.ReadPrivateKeyFile(f.key)
		if err != nil {
			return usagef("relay", "--record-key: %v", err)
		}
		cfg.Record.Key = k
	}
	return nil
}
