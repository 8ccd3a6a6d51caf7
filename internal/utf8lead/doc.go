// Package utf8lead holds the one rule for starting a UTF-8 sequence that
// the viewer-side sanitizer (attachwire/sanitize) and the host's terminal
// engine (internal/term/engine) both decode byte by byte. They must reject
// exactly the same bytes at exactly the same point, or the host's screen
// and a viewer's would differ; keeping the rule in one place keeps them
// in step with each other and with unicode/utf8.
package utf8lead
