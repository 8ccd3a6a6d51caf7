package attachwire

import (
	"strconv"
	"strings"
	"time"
)

// How a relay tells its peers when to come back, and how they read it.
// A planned restart is announced three ways, all with the same wait: a
// relay-restarting error control whose message is "redial after <N>s", a
// close (1012) whose reason is RestartReasonPrefix and that message, and,
// to new dials, an HTTP 503 whose Retry-After is <N>. A 429 carries a
// Retry-After too: the relay's rate limit.
//
// Zero means redial at once: "redial after 0s", "Retry-After: 0" and a
// Retry-After date already past all parse as a wait of 0 (ok), so a 503
// carrying one is still a planned restart; the peer's wait is then its
// backoff's draw (Backoff.Wait takes the longer of the two), whose jitter
// keeps a fleet of peers from redialling in lockstep. A peer that repeats
// one request after a 429 (a lane POST) waits at least its own retry
// step, so a relay that answers 0 again and again is not spun on.

// RestartReasonPrefix starts the close reason of a planned restart
// ("relay-restarting: redial after 5s").
const RestartReasonPrefix = "relay-restarting:"

// MaxRetryAfter caps every parsed wait, so that no arithmetic on an absurd
// one overflows; peers clamp it further to their backoff's maximum.
const MaxRetryAfter = 24 * time.Hour

// DefaultRetryAfter is the wait after a 429 without a Retry-After that
// parses.
const DefaultRetryAfter = 500 * time.Millisecond

// FormatRetryAfter is d as a Retry-After value: whole seconds, rounded up.
func FormatRetryAfter(d time.Duration) string {
	return strconv.FormatInt(int64((max(d, 0)+time.Second-1)/time.Second), 10)
}

// FormatRedialAfter is the message of a relay-restarting error control
// that asks for a redial after d, in whole seconds rounded up.
func FormatRedialAfter(d time.Duration) string {
	return "redial after " + FormatRetryAfter(d) + "s"
}

// RestartCloseReason is the close reason that announces a planned restart
// with a redial after d.
func RestartCloseReason(d time.Duration) string {
	return RestartReasonPrefix + " " + FormatRedialAfter(d)
}

// ParseRedialAfter reads FormatRedialAfter's grammar, "redial after <N>s"
// with N decimal digits, spaces around it allowed. Anything else
// ("5000ms", "-1s", prose) is no hint.
func ParseRedialAfter(msg string) (time.Duration, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(msg), "redial after ")
	if !ok {
		return 0, false
	}
	n, ok := strings.CutSuffix(rest, "s")
	if !ok {
		return 0, false
	}
	return parseSeconds(n)
}

// ParseRestartReason reads a close reason: announced when it starts with
// RestartReasonPrefix, with the wait of the redial-after message after
// it (0 when none parses). A 1012 close is a restart whatever its reason;
// that is the caller's check.
func ParseRestartReason(reason string) (wait time.Duration, announced bool) {
	rest, ok := strings.CutPrefix(reason, RestartReasonPrefix)
	if !ok {
		return 0, false
	}
	wait, _ = ParseRedialAfter(rest)
	return wait, true
}

// ParseRetryAfter reads a Retry-After value (RFC 9110 §10.2.3):
// delta-seconds, or an HTTP-date taken against now (a past one is 0).
// A negative, fractional or malformed value is no hint; a wait past
// MaxRetryAfter is MaxRetryAfter.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if d, ok := parseSeconds(v); ok {
		return d, true
	}
	for _, layout := range []string{
		"Mon, 02 Jan 2006 15:04:05 GMT", // IMF-fixdate
		time.RFC850,                     // the two obsolete forms a recipient accepts
		time.ANSIC,
	} {
		if t, err := time.Parse(layout, v); err == nil {
			return min(max(t.Sub(now), 0), MaxRetryAfter), true
		}
	}
	return 0, false
}

// parseSeconds parses a whole number of seconds, capped at MaxRetryAfter.
func parseSeconds(s string) (time.Duration, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > uint64(MaxRetryAfter/time.Second) { // too many digits: as long as the cap
		return MaxRetryAfter, true
	}
	return time.Duration(n) * time.Second, true
}
