package share

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
)

// Probe errors: what stops share before the program starts.
var (
	// ErrUnreachable reports a relay that cannot be reached, or an
	// address where no relay answers.
	ErrUnreachable = errors.New("share: relay unreachable")
	// ErrRefused reports a relay that refuses the host's credential (a
	// key, or in issuer mode the SSH key or its session).
	ErrRefused = errors.New("share: the relay refused the credential")
)

// probeTimeout bounds Probe's handshake.
const probeTimeout = 10 * time.Second

// Probe checks, before the program starts, that the relay answers at its
// address and admits the host's credential: it opens the room's
// WebSocket with a fresh host token and closes it at once (1000, before
// subscribing, which a relay takes as a probe, not a refusal). A relay
// that cannot be reached, or that answers without the protocol, is
// ErrUnreachable; a 401 or 403 is ErrRefused. The embedded relay needs no
// probe.
func (s *Share) Probe(ctx context.Context) error {
	if s.stopRelay != nil {
		return nil
	}
	var tok string
	var err error
	if s.issued != nil {
		tok, err = s.issued.hostToken(ctx) // the issuer's, for this room
	} else {
		tok, err = s.mint(attachwire.RoleHost, "", time.Now(), HostTokenTTL)
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableKeepAlives = true
	defer tr.CloseIdleConnections()
	ws, resp, err := websocket.Dial(ctx, s.attachURL, &websocket.DialOptions{
		HTTPClient:   &http.Client{Transport: tr},
		HTTPHeader:   http.Header{"Authorization": {"Bearer " + tok}},
		Subprotocols: []string{attachwire.Subprotocol},
	})
	switch {
	case err == nil:
	case resp == nil:
		return fmt.Errorf("%w: %s: %v", ErrUnreachable, s.Links.AttachURL, err)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w (%s)", ErrRefused, resp.Status)
	default:
		return fmt.Errorf("%w: %s answers %s, not as a relay", ErrUnreachable, s.Links.AttachURL, resp.Status)
	}
	defer ws.CloseNow()
	if ws.Subprotocol() != attachwire.Subprotocol {
		return fmt.Errorf("%w: %s does not speak %s", ErrUnreachable, s.Links.AttachURL, attachwire.Subprotocol)
	}
	ws.Close(websocket.StatusNormalClosure, "probe")
	return nil
}
