package issuer

import (
	"context"
	"crypto/ed25519"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/token"
	"golang.org/x/crypto/ssh"
)

// PathPrefix is where the issuer's API lives on a relay.
const PathPrefix = "/v1/issuer/"

// OrgID is the orgId of every token the issuer mints: its rooms are
// apart from a platform issuer's.
const OrgID = "issuer"

// HostTokenTTL is a host token's lifetime: a host asks for one per dial.
const HostTokenTTL = 5 * time.Minute

// MaxGuestTokenTTL bounds a redeemed token's lifetime (and so how long its
// holder may reconnect with it); an invite that lives longer is redeemed
// again.
const MaxGuestTokenTTL = 12 * time.Hour

// LoginMessage is what a client signs to log in: the challenge and the
// host it dialed, so that a proof made for one relay is worthless at
// another.
func LoginMessage(challenge, host string) []byte {
	return []byte("ptyhost-issuer-login-v1\n" + challenge + "\n" + host + "\n")
}

// Legs is what the issuer asks of the relay it serves: how many live legs
// hold an invite, and to close them when the invite is revoked (on every
// node of a cluster).
type Legs interface {
	Holders(ctx context.Context, room, invite string) int
	Revoked(ctx context.Context, room, invite string)
}

// Config configures a Server.
type Config struct {
	// Key signs sessions and attach tokens. Required.
	Key ed25519.PrivateKey
	// Users may log in. Nil: nobody (SetUsers gives them later).
	Users *Users
	// Store keeps rooms and invites. Nil: a new MemStore.
	Store Store
	// Legs counts and closes the legs invites admitted. Nil: none are
	// counted (maxHolders is then not enforced at redemption).
	Legs Legs
	// Challenges keeps the challenges given. Nil: the Server's memory.
	Challenges ChallengeStore
	// ClientAddr names a request's client for rate limits. Nil: the host
	// part of RemoteAddr.
	ClientAddr func(*http.Request) string
	// LoginsPerMinute is the rate of challenges and logins one client
	// address may ask for (burst a fifth of it). Zero: 30.
	LoginsPerMinute float64
	// RedeemsPerMinute is the rate of redemptions one client address may
	// make (burst a fifth of it, at least 10). Zero: 120.
	RedeemsPerMinute float64
	// MaxTokenTTL caps the lifetime of every token minted (a relay's own
	// bound). Zero: none beyond MaxGuestTokenTTL and HostTokenTTL.
	MaxTokenTTL time.Duration
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
	// Logger receives the issuer's logs: logins, rooms, invites; never a
	// secret, a signature or a token. Nil: slog.Default().
	Logger *slog.Logger
}

// Server is the issuer's HTTP API (docs/relay.md, "Issuer mode"). It is
// safe for concurrent use.
type Server struct {
	cfg     Config
	pub     ed25519.PublicKey
	users   atomic.Pointer[Users]
	chal    challenges
	logins  *addrLimiter
	redeems *addrLimiter
	mux     *http.ServeMux
}

// NewServer returns a Server configured by cfg.
func NewServer(cfg Config) (*Server, error) {
	if len(cfg.Key) != ed25519.PrivateKeySize {
		return nil, errors.New("issuer: no Ed25519 signing key")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Store == nil {
		cfg.Store = NewMemStore(func() int64 { return cfg.Now().Unix() })
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ClientAddr == nil {
		cfg.ClientAddr = remoteHost
	}
	if cfg.LoginsPerMinute <= 0 {
		cfg.LoginsPerMinute = 30
	}
	if cfg.RedeemsPerMinute <= 0 {
		cfg.RedeemsPerMinute = 120
	}
	s := &Server{cfg: cfg, pub: cfg.Key.Public().(ed25519.PublicKey),
		logins:  newAddrLimiter(cfg.LoginsPerMinute/60, max(int(cfg.LoginsPerMinute/5), 2), cfg.Now),
		redeems: newAddrLimiter(cfg.RedeemsPerMinute/60, max(int(cfg.RedeemsPerMinute/5), 10), cfg.Now)}
	s.users.Store(cfg.Users)
	m := http.NewServeMux()
	m.Handle("POST /v1/issuer/challenge", s.api(s.challenge))
	m.Handle("POST /v1/issuer/login", s.api(s.login))
	m.Handle("POST /v1/issuer/rooms", s.api(s.createRoom))
	m.Handle("POST /v1/issuer/rooms/{room}/host-token", s.api(s.hostToken))
	m.Handle("POST /v1/issuer/rooms/{room}/invites", s.api(s.createInvite))
	m.Handle("GET /v1/issuer/rooms/{room}/invites", s.api(s.listInvites))
	m.Handle("DELETE /v1/issuer/rooms/{room}/invites/{id}", s.api(s.revoke))
	m.Handle("POST /v1/issuer/redeem", s.api(s.redeem))
	m.HandleFunc("/v1/issuer/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, refusal(CodeNotFound, "no such issuer endpoint (or not with this method)"))
	})
	s.mux = m
	return s, nil
}

// PublicKey returns the key that verifies the Server's tokens: a relay
// adds it to its own.
func (s *Server) PublicKey() ed25519.PublicKey { return s.pub }

// SetUsers replaces who may log in (a reload). Sessions of keys no longer
// listed stop working at once.
func (s *Server) SetUsers(u *Users) { s.users.Store(u) }

// ServeHTTP serves the API under PathPrefix.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

func remoteHost(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = refusal(CodeInternal, "the issuer failed; try again")
	}
	if e.Code == CodeRateLimited {
		w.Header().Set("Retry-After", "2")
	}
	writeJSON(w, e.status(), errorBody{Error: e.Code, Message: e.Message})
}

// fail answers err, logging what is not the client's fault.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *Error
	if !errors.As(err, &e) || e.Code == CodeInternal {
		s.cfg.Logger.Warn("issuer: request failed", "path", r.URL.Path, "err", err)
	}
	writeError(w, err)
}

// reply is what an endpoint answers: a status and, unless it is 204, a
// JSON body.
type reply struct {
	status int
	body   any
}

// api makes an endpoint a handler: its error is answered by fail, its
// reply written as JSON.
func (s *Server) api(fn func(*http.Request) (reply, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep, err := fn(r)
		switch {
		case err != nil:
			s.fail(w, r, err)
		case rep.status == http.StatusNoContent:
			w.WriteHeader(rep.status)
		default:
			writeJSON(w, rep.status, rep.body)
		}
	})
}

// body reads a request body of at most MaxBodyBytes.
func body(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, refusal(CodeBadRequest, "reading the body failed")
	}
	return b, nil
}

func (s *Server) challenge(r *http.Request) (reply, error) {
	if !s.logins.allow(s.cfg.ClientAddr(r)) {
		return reply{}, refusal(CodeRateLimited, "too many logins from this address; wait a little")
	}
	var ch string
	var exp time.Time
	if s.cfg.Challenges != nil {
		ch, exp = newChallenge(), s.cfg.Now().Add(ChallengeTTL)
		if err := s.cfg.Challenges.Put(r.Context(), ch, exp); err != nil {
			return reply{}, fmt.Errorf("issuer: challenge store: %w", err)
		}
	} else if ch, exp = s.chal.issue(s.cfg.Now()); ch == "" {
		return reply{}, refusal(CodeRateLimited, "too many challenges outstanding; wait a little")
	}
	return reply{http.StatusOK, ChallengeResponse{Challenge: ch, ExpiresAt: exp.Unix()}}, nil
}

func (s *Server) login(r *http.Request) (reply, error) {
	addr := s.cfg.ClientAddr(r)
	if !s.logins.allow(addr) {
		return reply{}, refusal(CodeRateLimited, "too many logins from this address; wait a little")
	}
	b, err := body(r)
	if err != nil {
		return reply{}, err
	}
	usr, err := s.checkLogin(r.Context(), b, r.Host)
	if err != nil {
		s.cfg.Logger.Info("issuer: login refused", "addr", addr, "err", err)
		return reply{}, err
	}
	sess, exp, err := mintSession(s.cfg.Key, usr.Fingerprint, usr.Name, s.cfg.Now())
	if err != nil {
		return reply{}, err
	}
	s.cfg.Logger.Info("issuer: login", "user", usr.Name, "key", usr.Fingerprint, "addr", addr)
	return reply{http.StatusOK, LoginResponse{Session: sess, User: usr.Name, ExpiresAt: exp.Unix()}}, nil
}

// checkLogin verifies a login body against host, the Host the client
// dialed. The challenge is spent first, whatever follows.
func (s *Server) checkLogin(ctx context.Context, b []byte, host string) (User, error) {
	req, err := ParseLoginRequest(b)
	if err != nil {
		return User{}, err
	}
	if ok, err := s.takeChallenge(ctx, req.Challenge); err != nil {
		return User{}, err
	} else if !ok {
		return User{}, refusal(CodeChallengeInvalid, "challenge expired, already used or never given: ask for a new one")
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(req.PublicKey))
	if err != nil {
		return User{}, refusal(CodeBadRequest, "publicKey is not an SSH public key")
	}
	if _, ok := key.(*ssh.Certificate); ok {
		return User{}, refusal(CodeBadRequest, "certificates are not accepted: log in with the key")
	}
	usr, ok := s.users.Load().Lookup(key)
	if !ok {
		return User{}, refusal(CodeUnknownKey, "key "+ssh.FingerprintSHA256(key)+" is not listed on this relay")
	}
	if req.Signature.Format == ssh.KeyAlgoRSA {
		return User{}, refusal(CodeUnauthorized, "ssh-rsa (SHA-1) signatures are refused: sign with rsa-sha2-256 or rsa-sha2-512")
	}
	blob, _ := base64.StdEncoding.DecodeString(req.Signature.Blob)
	sig := &ssh.Signature{Format: req.Signature.Format, Blob: blob}
	if err := key.Verify(LoginMessage(req.Challenge, host), sig); err != nil {
		return User{}, refusal(CodeUnauthorized, "signature does not verify for this key, challenge and relay")
	}
	return usr, nil
}

// takeChallenge spends ch and reports whether it was given and is
// unexpired.
func (s *Server) takeChallenge(ctx context.Context, ch string) (bool, error) {
	if s.cfg.Challenges == nil {
		return s.chal.take(ch, s.cfg.Now()), nil
	}
	exp, ok, err := s.cfg.Challenges.Take(ctx, ch)
	if err != nil {
		return false, fmt.Errorf("issuer: challenge store: %w", err)
	}
	return ok && !s.cfg.Now().After(exp), nil
}

// session authenticates a request's Bearer session and returns its user,
// who must still be listed.
func (s *Server) session(r *http.Request) (User, error) {
	h := r.Header.Get("Authorization")
	scheme, raw, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return User{}, refusal(CodeUnauthorized, "a session is required: log in first")
	}
	fp, err := verifySession(s.pub, strings.TrimSpace(raw), s.cfg.Now)
	if err != nil {
		return User{}, refusal(CodeUnauthorized, "session invalid or expired: log in again")
	}
	usr, ok := s.users.Load().byFingerprint(fp)
	if !ok {
		return User{}, refusal(CodeUnknownKey, "key "+fp+" is no longer listed on this relay")
	}
	return usr, nil
}

// owned authenticates the request and returns the room it names, which
// the session's key must own.
func (s *Server) owned(r *http.Request) (User, Room, error) {
	usr, err := s.session(r)
	if err != nil {
		return User{}, Room{}, err
	}
	id := r.PathValue("room")
	if !ValidRoomID(id) {
		return User{}, Room{}, refusal(CodeNotFound, "no such room")
	}
	rm, err := s.cfg.Store.Room(r.Context(), id)
	if err != nil {
		return User{}, Room{}, storeErr(err, "no such room")
	}
	if subtle.ConstantTimeCompare([]byte(rm.Owner), []byte(usr.Fingerprint)) != 1 {
		return User{}, Room{}, refusal(CodeForbidden, "the room belongs to another key")
	}
	return usr, rm, nil
}

// storeErr keeps a store's not-found as the issuer's, with msg; anything
// else is internal.
func storeErr(err error, msg string) error {
	if errors.Is(err, ErrNotFound) {
		return refusal(CodeNotFound, msg)
	}
	return fmt.Errorf("issuer: store: %w", err)
}

func (s *Server) createRoom(r *http.Request) (reply, error) {
	usr, err := s.session(r)
	if err != nil {
		return reply{}, err
	}
	rm := Room{ID: NewRoomID(), Owner: usr.Fingerprint, OwnerName: usr.Name, Created: s.cfg.Now().Unix()}
	if err := s.cfg.Store.CreateRoom(r.Context(), rm); err != nil {
		return reply{}, fmt.Errorf("issuer: store: %w", err)
	}
	s.cfg.Logger.Info("issuer: room created", "room", rm.ID, "user", usr.Name)
	return reply{http.StatusCreated, RoomResponse{Room: rm.ID}}, nil
}

// ttl caps d by MaxTokenTTL.
func (s *Server) ttl(d time.Duration) time.Duration {
	if s.cfg.MaxTokenTTL > 0 {
		return min(d, s.cfg.MaxTokenTTL)
	}
	return d
}

func (s *Server) hostToken(r *http.Request) (reply, error) {
	_, rm, err := s.owned(r)
	if err != nil {
		return reply{}, err
	}
	b, err := body(r)
	if err != nil {
		return reply{}, err
	}
	req, err := ParseHostTokenRequest(b)
	if err != nil {
		return reply{}, err
	}
	now := s.cfg.Now()
	c := token.Claims{SessionID: rm.ID, RoomID: rm.ID, Role: attachwire.RoleHost, Epoch: req.Epoch, OrgID: OrgID,
		IssuedAt: now.Unix(), ExpiresAt: now.Add(s.ttl(HostTokenTTL)).Unix(), Audience: token.Audience}
	tok, err := s.mint(&c)
	if err != nil {
		return reply{}, err
	}
	return reply{http.StatusOK, TokenResponse{Token: tok, ExpiresAt: c.ExpiresAt}}, nil
}

// mint signs c under a fresh JTI, which it sets.
func (s *Server) mint(c *token.Claims) (string, error) {
	jti, err := token.NewJTI()
	if err != nil {
		return "", err
	}
	c.JTI = jti
	return token.Mint(s.cfg.Key, *c)
}

func (s *Server) createInvite(r *http.Request) (reply, error) {
	usr, rm, err := s.owned(r)
	if err != nil {
		return reply{}, err
	}
	b, err := body(r)
	if err != nil {
		return reply{}, err
	}
	req, err := ParseInviteRequest(b)
	if err != nil {
		return reply{}, err
	}
	now := s.cfg.Now()
	secret, hash := newSecret()
	inv := Invite{ID: randomID(inviteIDLen), Room: rm.ID, Role: req.Role, SecretHash: hash,
		ExpiresAt: now.Unix() + req.TTLSeconds, MaxHolders: req.MaxHolders, Propose: req.Propose, Created: now.Unix()}
	if err := s.cfg.Store.CreateInvite(r.Context(), inv); err != nil {
		return reply{}, storeErr(err, "no such room")
	}
	s.cfg.Logger.Info("issuer: invite created", "room", rm.ID, "invite", inv.ID, "role", string(inv.Role), "user", usr.Name)
	return reply{http.StatusCreated, InviteResponse{ID: inv.ID, Secret: secret, Role: inv.Role, ExpiresAt: inv.ExpiresAt}}, nil
}

func (s *Server) listInvites(r *http.Request) (reply, error) {
	_, rm, err := s.owned(r)
	if err != nil {
		return reply{}, err
	}
	invs, err := s.cfg.Store.Invites(r.Context(), rm.ID)
	if err != nil {
		return reply{}, storeErr(err, "no such room")
	}
	out := InviteList{Invites: make([]InviteInfo, 0, len(invs))}
	for _, inv := range invs {
		info := InviteInfo{ID: inv.ID, Role: inv.Role, ExpiresAt: inv.ExpiresAt, MaxHolders: inv.MaxHolders, Revoked: inv.Revoked}
		if s.cfg.Legs != nil {
			info.Holders = s.cfg.Legs.Holders(r.Context(), rm.ID, inv.ID)
		}
		out.Invites = append(out.Invites, info)
	}
	return reply{http.StatusOK, out}, nil
}

func (s *Server) revoke(r *http.Request) (reply, error) {
	usr, rm, err := s.owned(r)
	if err != nil {
		return reply{}, err
	}
	id := r.PathValue("id")
	if !ValidInviteID(id) {
		return reply{}, refusal(CodeNotFound, "no such invite")
	}
	if err := s.cfg.Store.Revoke(r.Context(), rm.ID, id); err != nil {
		return reply{}, storeErr(err, "no such invite")
	}
	if s.cfg.Legs != nil {
		s.cfg.Legs.Revoked(r.Context(), rm.ID, id)
	}
	s.cfg.Logger.Info("issuer: invite revoked", "room", rm.ID, "invite", id, "user", usr.Name)
	return reply{status: http.StatusNoContent}, nil
}

func (s *Server) redeem(r *http.Request) (reply, error) {
	addr := s.cfg.ClientAddr(r)
	if !s.redeems.allow(addr) {
		return reply{}, refusal(CodeRateLimited, "too many redemptions from this address; wait a little")
	}
	b, err := body(r)
	if err != nil {
		return reply{}, err
	}
	req, err := ParseRedeemRequest(b)
	if err != nil {
		return reply{}, err
	}
	inv, err := s.findInvite(r.Context(), req.Room, req.Secret)
	if err == nil {
		err = s.usable(r.Context(), inv)
	}
	if err != nil {
		s.cfg.Logger.Info("issuer: redemption refused", "room", req.Room, "addr", addr, "err", err)
		return reply{}, err
	}
	now := s.cfg.Now()
	exp := min(inv.ExpiresAt, now.Add(s.ttl(MaxGuestTokenTTL)).Unix())
	c := token.Claims{SessionID: inv.Room, RoomID: inv.Room, UserID: newGuestID(), Role: inv.Role, OrgID: OrgID,
		IssuedAt: now.Unix(), ExpiresAt: max(exp, now.Unix()+1), Audience: token.Audience,
		Name: req.Name, Invite: inv.ID, Propose: inv.Propose && inv.Role == attachwire.RoleDriver}
	tok, err := s.mint(&c)
	if err != nil {
		return reply{}, err
	}
	s.cfg.Logger.Info("issuer: invite redeemed", "room", inv.Room, "invite", inv.ID, "guest", c.UserID, "addr", addr)
	return reply{http.StatusOK, RedeemResponse{Token: tok, Role: c.Role, UserID: c.UserID, ExpiresAt: c.ExpiresAt}}, nil
}

// findInvite returns the invite of room whose secret is secret, comparing
// the hashes in constant time, all of them.
func (s *Server) findInvite(ctx context.Context, room, secret string) (Invite, error) {
	invs, err := s.cfg.Store.Invites(ctx, room)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Invite{}, fmt.Errorf("issuer: store: %w", err)
	}
	want := []byte(hashSecret(secret))
	var found Invite
	hit := 0
	for _, inv := range invs {
		if subtle.ConstantTimeCompare([]byte(inv.SecretHash), want) == 1 {
			found, hit = inv, 1
		}
	}
	if hit == 0 {
		return Invite{}, refusal(CodeNotFound, "no such link: check it was copied whole")
	}
	return found, nil
}

// usable refuses a revoked or expired invite, or one whose holders are
// at its cap.
func (s *Server) usable(ctx context.Context, inv Invite) error {
	switch {
	case inv.Revoked:
		return refusal(CodeRevoked, "the link was revoked")
	case s.cfg.Now().Unix() >= inv.ExpiresAt:
		return refusal(CodeExpired, "the link has expired")
	case inv.MaxHolders > 0 && s.cfg.Legs != nil && s.cfg.Legs.Holders(ctx, inv.Room, inv.ID) >= inv.MaxHolders:
		return refusal(CodeFull, fmt.Sprintf("the link admits %d at once and all are here", inv.MaxHolders))
	}
	return nil
}

// CheckInvite is the relay's admission check of a leg whose token came
// from invite id of room: it returns the invite, or an *Error (not-found,
// revoked) saying why the leg must not join. Expiry is the token's: a
// token redeemed in time stays good until its own exp.
func (s *Server) CheckInvite(ctx context.Context, room, id string) (Invite, error) {
	inv, err := s.cfg.Store.Invite(ctx, room, id)
	if err != nil {
		return Invite{}, storeErr(err, "the link no longer exists")
	}
	if inv.Revoked {
		return inv, refusal(CodeRevoked, "the link was revoked")
	}
	return inv, nil
}
