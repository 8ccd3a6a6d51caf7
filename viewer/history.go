package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/web/engine"
)

// ErrHistoryGone is matched by History's errors when the relay no longer
// holds (or does not yet hold) the part of the history asked for.
var ErrHistoryGone = errors.New("viewer: that part of the history is gone")

// History reads a room's history from its relay (docs/relay.md, "History
// and rewind"): what a viewer rewinds and searches while the session
// runs. It replays on an engine of its own, so old seqs never meet the
// live stream's. A History is safe for concurrent use; it holds no
// connection.
type History struct {
	// AttachURL is the room's attach URL (ws:// or wss://).
	AttachURL string
	// Token is a driver or viewer token for the room.
	Token string
	// SessionID is the room's session id.
	SessionID string
	// HTTPClient makes the requests; nil: http.DefaultClient.
	HTTPClient *http.Client
	// Key is a sealed room's key: ScreenAt and Frames open the
	// history's frames with it, and fail on one that does not open. nil:
	// the viewer holds none; Frames returns a sealed room's frames as
	// the relay holds them, sealed, and ScreenAt refuses its history.
	Key *seal.Key
}

// HistoryIndex is the extent of a room's history and its landmarks.
type HistoryIndex struct {
	// First and Head are the oldest and newest seqs it holds.
	First uint64 `json:"first"`
	Head  uint64 `json:"head"`
	// Keyframes are where a rewind can start: the seq each shows.
	Keyframes []HistoryPoint `json:"keyframes"`
	// Points map seqs to times, sparsely, for a timeline.
	Points []HistoryPoint `json:"points"`
	// Marks are the Marker frames (command marks among them).
	Marks []HistoryMark `json:"marks"`
	// Epoch is the host's epoch, the one every frame belongs to.
	Epoch uint64 `json:"epoch"`
	// Sealed is the key id a sealed room's history is sealed under, ""
	// for a plain room's: one history is all under one key.
	Sealed string `json:"sealed,omitempty"`
	// Stopped says why the history stopped growing; "" while it grows.
	Stopped string `json:"stopped,omitempty"`
}

// HistoryPoint is a seq at a time (µs since the session started).
type HistoryPoint struct {
	Seq     uint64 `json:"seq"`
	RelTime uint64 `json:"t"`
}

// HistoryMark is a marker at a seq and time.
type HistoryMark struct {
	Seq     uint64 `json:"seq"`
	RelTime uint64 `json:"t"`
	Label   string `json:"label"`
}

// Index fetches the history's index.
func (h *History) Index(ctx context.Context) (HistoryIndex, error) {
	var ix HistoryIndex
	body, _, err := h.get(ctx, "history", nil)
	if err != nil {
		return ix, err
	}
	if err := json.Unmarshal(body, &ix); err != nil {
		return ix, fmt.Errorf("viewer: history index: %w", err)
	}
	return ix, nil
}

// ScreenAt rebuilds the screen as it was at seq: the relay sends its
// newest key frame at or before seq and the frames after it, applied here
// as a live viewer applies them. A frame that fails to open fails it as
// it fails Frames; a history Key cannot read at all (sealed under another
// key, plain while Key is set, or sealed while it is nil), with the
// sentence that says which.
func (h *History) ScreenAt(ctx context.Context, seq uint64) (attachwire.Screen, error) {
	body, _, err := h.get(ctx, "history/frames", url.Values{"at": {strconv.FormatUint(seq, 10)}})
	if err != nil {
		return attachwire.Screen{}, err
	}
	eng := engine.New(engine.Options{SessionID: h.SessionID, Mirror: true, Key: h.Key})
	var m mirror
	defer func() {
		if m.emu != nil {
			m.emu.Close()
		}
	}()
	var epoch uint64
	r := attachwire.NewFileReader(bytes.NewReader(body))
	for {
		f, err := r.ReadFrame()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return attachwire.Screen{}, fmt.Errorf("viewer: history frames: %w", err)
		}
		evs, err := eng.ApplyFrame(f)
		if err != nil {
			// Sealed frames without the key do not decode.
			if r := h.refusal(ctx); r != nil {
				return attachwire.Screen{}, r
			}
			return attachwire.Screen{}, fmt.Errorf("viewer: history frames: %w", err)
		}
		for _, ev := range evs {
			switch ev.Kind {
			case engine.Size:
				if ev.Screen != nil {
					m.load(ev.Screen)
					epoch = ev.Screen.Epoch
				} else {
					m.resize(ev.Cols, ev.Rows, ev.PxWidth, ev.PxHeight)
				}
			case engine.Write:
				m.write(ev.Raw)
			case engine.Error:
				if ev.Text == engine.CodeIntegrity {
					if r := h.refusal(ctx); r != nil {
						return attachwire.Screen{}, r
					}
					return attachwire.Screen{}, fmt.Errorf("viewer: history frame seq %d: %w", f.Seq, seal.ErrOpen)
				}
			}
		}
	}
	scr, ok := m.screen(epoch, eng.Echo())
	if !ok {
		return attachwire.Screen{}, fmt.Errorf("%w: no key frame at or before seq %d", ErrHistoryGone, seq)
	}
	return scr, nil
}

// Frames reads the frames from seq from through to, as much as one answer
// of the relay holds, and returns where the next read starts.
//
// With Key set it opens them (docs/protocol.md section 8, "The history of
// a sealed room"), reading the index first for the epoch they belong to
// and the key they are sealed under: a history sealed under another key,
// or plain, is refused whole with an error wrapping the
// *engine.HistoryKeyError whose Message says which, and a frame that
// fails to open (altered on the way) is an error naming its seq that
// wraps seal.ErrOpen. A library cannot skip it as the page does: a
// caller that searches or copies the frames would never learn of the gap.
// With Key nil the frames come as the relay holds them: a plain room's
// as they are, a sealed room's sealed (what a copy of the history that
// does not read it wants).
func (h *History) Frames(ctx context.Context, from, to uint64) ([]attachwire.Frame, uint64, error) {
	var opener *engine.HistoryOpener
	if h.Key != nil {
		ix, err := h.Index(ctx)
		if err != nil {
			return nil, 0, err
		}
		if opener, err = engine.NewHistoryOpener(h.Key, h.SessionID, ix.Epoch, ix.Sealed); err != nil {
			return nil, 0, keyError(err)
		}
	}
	body, hdr, err := h.get(ctx, "history/frames", url.Values{
		"from": {strconv.FormatUint(from, 10)}, "to": {strconv.FormatUint(to, 10)}})
	if err != nil {
		return nil, 0, err
	}
	next, err := strconv.ParseUint(hdr.Get("Ptyhost-Next-Seq"), 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("viewer: history frames: no next seq")
	}
	var frames []attachwire.Frame
	r := attachwire.NewFileReader(bytes.NewReader(body))
	for {
		f, err := r.ReadFrame()
		if errors.Is(err, io.EOF) {
			return frames, next, nil
		}
		if err != nil {
			return nil, 0, fmt.Errorf("viewer: history frames: %w", err)
		}
		if opener != nil {
			opened, ok := opener.Open(f)
			if !ok {
				return nil, 0, fmt.Errorf("viewer: history frame seq %d: %w", f.Seq, seal.ErrOpen)
			}
			f = opened
		}
		frames = append(frames, f)
	}
}

// refusal is asked once a screen's frames fail: it returns the error
// that says so when the index shows that none of the history's frames
// would open with Key, nil otherwise (ScreenAt reads no index unless a
// frame fails).
func (h *History) refusal(ctx context.Context) error {
	ix, err := h.Index(ctx)
	if err != nil {
		return nil
	}
	if _, err := engine.NewHistoryOpener(h.Key, h.SessionID, ix.Epoch, ix.Sealed); err != nil {
		return keyError(err)
	}
	return nil
}

// keyError reports NewHistoryOpener's refusal.
func keyError(err error) error {
	var ke *engine.HistoryKeyError
	if errors.As(err, &ke) {
		return historyKeyError{ke}
	}
	return fmt.Errorf("viewer: history: %w", err)
}

// historyKeyError is an *engine.HistoryKeyError as this package reports
// it: its sentence, under the package's prefix.
type historyKeyError struct{ err *engine.HistoryKeyError }

func (e historyKeyError) Error() string { return "viewer: " + e.err.Message }
func (e historyKeyError) Unwrap() error { return e.err }

// get requests an endpoint under the room's path and returns its body.
func (h *History) get(ctx context.Context, endpoint string, q url.Values) ([]byte, http.Header, error) {
	u, err := url.Parse(laneBase(h.AttachURL))
	if err != nil {
		return nil, nil, fmt.Errorf("viewer: attach URL: %w", err)
	}
	u = u.JoinPath(endpoint)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+h.Token)
	hc := h.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("viewer: history: %w", err)
	}
	defer resp.Body.Close()
	// Bounded: a range answer by the relay's chunk, a screen by a key
	// frame and what follows it; this cap only stops a broken peer.
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("viewer: history: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusGone:
		return nil, nil, ErrHistoryGone
	case resp.StatusCode != http.StatusOK:
		return nil, nil, fmt.Errorf("viewer: history: %s: %s", resp.Status, firstLine(body))
	}
	return body, resp.Header, nil
}

func firstLine(b []byte) string {
	for i, c := range b {
		if c == '\n' || i == 200 {
			return string(b[:i])
		}
	}
	return string(b)
}
