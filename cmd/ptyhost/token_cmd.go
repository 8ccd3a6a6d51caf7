package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/token"
)

const tokenHelp = `usage: ptyhost token --key FILE --room ID --role host|driver|viewer [flags]

Mints an attach token (an EdDSA JWT, interactive-attach-v1 §15) with the
private key in FILE and prints it. A relay holding the matching public key
admits it to room ID in that role until it expires. Each token gets a
fresh random jti.

Flags:
  --key FILE       the private key, as written by 'ptyhost keygen' (required)
  --room ID        the room, which is the session id (required)
  --role ROLE      host (streams the session), driver (may take the pen
                   and type) or viewer (watches) (required)
  --user U         who the driver or viewer is; required for those roles,
                   refused for host
  --epoch N        the host stream's epoch (host only). Default: now in
                   unix milliseconds, so a token minted later for a new
                   host process carries a higher epoch, as the relay
                   requires; pass the same --epoch again to re-mint for a
                   host process that is already streaming
  --org O          the organization scoping the room (default "default")
  --ttl DURATION   how long the token is valid (default 5m, at most 24h)
`

// Limits of --ttl. Tokens are refreshed by reconnecting with a fresh one,
// and a relay forgets a jti at its exp, so a short life is the point.
const (
	defaultTokenTTL = 5 * time.Minute
	maxTokenTTL     = 24 * time.Hour
)

// defaultOrg is the orgId of a single-tenant relay's rooms.
const defaultOrg = "default"

type tokenOptions struct {
	key, room, role, user, org string
	epoch                      string
	ttl                        time.Duration
}

func parseToken(args []string) (tokenOptions, error) {
	o := tokenOptions{org: defaultOrg, ttl: defaultTokenTTL}
	flags := newFlagSet("token")
	flags.StringVar(&o.key, "key", "", "")
	flags.StringVar(&o.room, "room", "", "")
	flags.StringVar(&o.role, "role", "", "")
	flags.StringVar(&o.user, "user", "", "")
	flags.StringVar(&o.epoch, "epoch", "", "")
	flags.StringVar(&o.org, "org", defaultOrg, "")
	flags.DurationVar(&o.ttl, "ttl", defaultTokenTTL, "")
	if err := parseFlags("token", flags, args); err != nil {
		return o, err
	}
	host := o.role == string(attachwire.RoleHost)
	switch {
	case o.key == "":
		return o, usagef("token", "missing --key FILE")
	case o.room == "":
		return o, usagef("token", "missing --room ID")
	case o.role == "":
		return o, usagef("token", "missing --role host|driver|viewer")
	case !host && o.role != string(attachwire.RoleDriver) && o.role != string(attachwire.RoleViewer):
		return o, usagef("token", "--role must be host, driver or viewer, not %q", o.role)
	case host && o.user != "":
		return o, usagef("token", "--user is for driver and viewer tokens; a host token names no user")
	case !host && o.user == "":
		return o, usagef("token", "--user is required for a %s token", o.role)
	case !host && o.epoch != "":
		return o, usagef("token", "--epoch is for host tokens only")
	case o.ttl < time.Second || o.ttl > maxTokenTTL:
		return o, usagef("token", "--ttl must be in 1s..24h, got %v", o.ttl)
	}
	return o, nil
}

func tokenCmd(_ context.Context, args []string, _ io.Reader, stdout io.Writer) error {
	o, err := parseToken(args)
	if err != nil {
		return err // flag.ErrHelp too: run prints the help
	}
	now := time.Now()
	c := token.Claims{
		SessionID: o.room, RoomID: o.room, UserID: o.user, Role: attachwire.Role(o.role),
		OrgID: o.org, IssuedAt: now.Unix(), ExpiresAt: now.Add(o.ttl).Unix(), Audience: token.Audience,
	}
	if c.JTI, err = token.NewJTI(); err != nil {
		return fmt.Errorf("token: %w", err)
	}
	if c.Role == attachwire.RoleHost {
		e := uint64(now.UnixMilli())
		if o.epoch != "" {
			if e, err = strconv.ParseUint(o.epoch, 10, 64); err != nil {
				return usagef("token", "--epoch must be a whole number, got %q", o.epoch)
			}
		}
		c.Epoch = &e
	}
	if err := c.Validate(); err != nil {
		// --room, --user or --org is empty, too long or holds a control
		// character; the message names the claim.
		return usagef("token", "invalid --room, --user or --org: %s", strings.TrimPrefix(err.Error(), "token: "))
	}
	key, err := token.ReadPrivateKeyFile(o.key)
	if err != nil {
		return usagef("token", "--key: %s", strings.TrimPrefix(err.Error(), "token: "))
	}
	raw, err := token.Mint(key, c)
	if err != nil {
		return fmt.Errorf("token: %w", err)
	}
	_, err = fmt.Fprintln(stdout, raw)
	return err
}
