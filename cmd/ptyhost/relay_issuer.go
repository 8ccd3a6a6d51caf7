package main

import (
	"log/slog"

	"github.com/ptyhost/ptyhost/issuer"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/token"
)

// issuerFlags are relay's issuer-mode flags.
type issuerFlags struct {
	key, authorized, users, state string
	loaded                        *issuer.Users
}

// configure reads the issuer key and the users into cfg.Issuer; without
// --issuer-key the other two are a usage error.
func (f *issuerFlags) configure(cfg *relay.Config) error {
	if f.key == "" {
		if f.authorized != "" || f.users != "" || f.state != "" {
			return usagef("relay", "--authorized-keys, --users and --issuer-state need --issuer-key")
		}
		return nil
	}
	if f.authorized == "" {
		return usagef("relay", "--issuer-key needs --authorized-keys FILE|DIR: the SSH keys that may share")
	}
	key, err := token.ReadPrivateKeyFile(f.key)
	if err != nil {
		return usagef("relay", "--issuer-key: %v", err)
	}
	users, err := issuer.LoadUsers(f.authorized, f.users)
	if err != nil {
		return usagef("relay", "%v", err)
	}
	f.loaded = users
	cfg.Issuer = &relay.IssuerConfig{Key: key, Users: users}
	if f.state != "" {
		st, err := issuer.OpenFileStore(f.state, nil)
		if err != nil {
			return usagef("relay", "--issuer-state: %v", err)
		}
		cfg.Issuer.Store = st
	}
	return nil
}

// reloads makes SIGHUP reread the authorized keys and users file until
// stop; a file that no longer loads leaves the users as they were.
func (f *issuerFlags) reloads(log *slog.Logger) (stop func()) {
	reload := func() {
		users, err := issuer.LoadUsers(f.authorized, f.users)
		if err != nil {
			log.Warn("ptyhost relay: users not reloaded, the previous ones stay", "err", err)
			return
		}
		f.loaded.Replace(users)
		log.Info("ptyhost relay: users reloaded", "keys", users.Len())
	}
	reloadOnHUP.Store(&reload)
	return func() { reloadOnHUP.Store(nil) }
}
