package issuer

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
	"golang.org/x/crypto/ssh"
)

// ErrNotIssuer is matched by a Client's error when the server answered,
// but not as an issuer does: no relay at that address, or a relay
// without issuer mode.
var ErrNotIssuer = errors.New("issuer: the server at that address is not a relay in issuer mode")

// Client speaks to a relay's issuer API. It keeps the session of its last
// Login; it is safe for concurrent use once logged in.
type Client struct {
	base    *url.URL
	hc      *http.Client
	session string
}

// NewClient returns a Client of the relay at base: http(s)://host[:port]
// with an optional path prefix; ws:// and wss:// are taken as http://
// and https://. hc nil: http.DefaultClient.
func NewClient(base string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return nil, fmt.Errorf("issuer: relay URL: %w", err)
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	case "http", "https":
	default:
		return nil, fmt.Errorf("issuer: relay URL %q: want http://, https://, ws:// or wss://", u.Redacted())
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("issuer: relay URL %q: want scheme://host[:port][/path]", u.Redacted())
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: u, hc: hc}, nil
}

// Base returns the relay's http(s) base URL.
func (c *Client) Base() string { return c.base.String() }

// Session returns the session of the last Login ("" before one).
func (c *Client) Session() string { return c.session }

// SetSession uses a session obtained earlier.
func (c *Client) SetSession(s string) { c.session = s }

// Link returns the short link of an invite: <base>/s/<room>#<secret>.
func (c *Client) Link(room, secret string) string {
	return c.base.JoinPath("s", room).String() + "#" + secret
}

// Login proves the holder of signer's key to the relay: it asks for a
// challenge and answers it signed, and keeps the session it gets.
func (c *Client) Login(ctx context.Context, signer ssh.Signer) (LoginResponse, error) {
	var ch ChallengeResponse
	if err := c.do(ctx, http.MethodPost, "challenge", nil, &ch, false); err != nil {
		return LoginResponse{}, err
	}
	sig, err := Sign(signer, LoginMessage(ch.Challenge, c.base.Host))
	if err != nil {
		return LoginResponse{}, err
	}
	req := LoginRequest{Challenge: ch.Challenge, PublicKey: authorizedKey(signer.PublicKey()),
		Signature: Signature{Format: sig.Format, Blob: base64.StdEncoding.EncodeToString(sig.Blob)}}
	var out LoginResponse
	if err := c.do(ctx, http.MethodPost, "login", req, &out, false); err != nil {
		return LoginResponse{}, err
	}
	c.session = out.Session
	return out, nil
}

// authorizedKey is key as an authorized_keys line's first two fields.
func authorizedKey(key ssh.PublicKey) string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key)))
}

// Sign signs msg with s; an RSA key signs with SHA-512 (rsa-sha2-512),
// since the issuer refuses SHA-1 signatures.
func Sign(s ssh.Signer, msg []byte) (*ssh.Signature, error) {
	if s.PublicKey().Type() == ssh.KeyAlgoRSA {
		as, ok := s.(ssh.AlgorithmSigner)
		if !ok {
			return nil, errors.New("issuer: this RSA signer cannot make SHA-2 signatures")
		}
		sig, err := as.SignWithAlgorithm(rand.Reader, msg, ssh.KeyAlgoRSASHA512)
		if err != nil {
			return nil, fmt.Errorf("issuer: signing the challenge: %w", err)
		}
		return sig, nil
	}
	sig, err := s.Sign(rand.Reader, msg)
	if err != nil {
		return nil, fmt.Errorf("issuer: signing the challenge: %w", err)
	}
	return sig, nil
}

// CreateRoom makes a room the logged-in key owns and returns its id.
func (c *Client) CreateRoom(ctx context.Context) (string, error) {
	var out RoomResponse
	if err := c.do(ctx, http.MethodPost, "rooms", struct{}{}, &out, true); err != nil {
		return "", err
	}
	return out.Room, nil
}

// HostToken mints a host token for room at epoch.
func (c *Client) HostToken(ctx context.Context, room string, epoch uint64) (TokenResponse, error) {
	var out TokenResponse
	err := c.do(ctx, http.MethodPost, "rooms/"+url.PathEscape(room)+"/host-token", HostTokenRequest{Epoch: &epoch}, &out, true)
	return out, err
}

// CreateInvite makes an invite of room.
func (c *Client) CreateInvite(ctx context.Context, room string, req InviteRequest) (InviteResponse, error) {
	var out InviteResponse
	err := c.do(ctx, http.MethodPost, "rooms/"+url.PathEscape(room)+"/invites", req, &out, true)
	return out, err
}

// ListInvites lists room's invites.
func (c *Client) ListInvites(ctx context.Context, room string) ([]InviteInfo, error) {
	var out InviteList
	err := c.do(ctx, http.MethodGet, "rooms/"+url.PathEscape(room)+"/invites", nil, &out, true)
	return out.Invites, err
}

// Revoke revokes invite id of room: no new redemptions, and every leg it
// admitted is closed.
func (c *Client) Revoke(ctx context.Context, room, id string) error {
	return c.do(ctx, http.MethodDelete, "rooms/"+url.PathEscape(room)+"/invites/"+url.PathEscape(id), nil, nil, true)
}

// Redeem exchanges an invite's secret for an attach token of room, under
// the display name name. It needs no login.
func (c *Client) Redeem(ctx context.Context, room, secret, name string) (RedeemResponse, error) {
	var out RedeemResponse
	err := c.do(ctx, http.MethodPost, "redeem", RedeemRequest{Room: room, Secret: secret, Name: name}, &out, false)
	return out, err
}

// RoleFor names the invite role a person asks for: "watch" is a viewer,
// "drive" a driver.
func RoleFor(s string) (attachwire.Role, bool) {
	switch s {
	case "watch", "viewer":
		return attachwire.RoleViewer, true
	case "drive", "driver":
		return attachwire.RoleDriver, true
	}
	return "", false
}

// do sends one request to the issuer endpoint path and decodes the
// answer into out (nil: none expected).
func (c *Client) do(ctx context.Context, method, path string, in, out any, auth bool) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("issuer: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.JoinPath("v1", "issuer", path).String(), body)
	if err != nil {
		return fmt.Errorf("issuer: %w", err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth {
		if c.session == "" {
			return &Error{Code: CodeUnauthorized, Message: "not logged in"}
		}
		req.Header.Set("Authorization", "Bearer "+c.session)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("issuer: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("issuer: reading the answer: %w", err)
	}
	isJSON := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
	if resp.StatusCode >= 300 {
		var eb errorBody
		if !isJSON || json.Unmarshal(b, &eb) != nil || eb.Error == "" {
			return fmt.Errorf("%w (HTTP %s)", ErrNotIssuer, strconv.Itoa(resp.StatusCode))
		}
		return &Error{Code: eb.Error, Message: eb.Message, Status: resp.StatusCode}
	}
	if out == nil {
		return nil
	}
	if !isJSON || json.Unmarshal(b, out) != nil {
		return fmt.Errorf("%w (an answer that is not the issuer's JSON)", ErrNotIssuer)
	}
	return nil
}
