package autotls_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Pebble's validation authority reads its task queue for the life of the
// process (pebbletest.Server.Close cannot stop it): its goroutine alone is
// let be.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/letsencrypt/pebble/v2/va.VAImpl.processTasks"))
}
