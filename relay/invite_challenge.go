package relay

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/ptyhost/ptyhost/issuer"
)

// challengeBucket keeps a cluster's login challenges, so that a login may
// reach another node than the challenge it answers. Its entries age out
// after challengeBucketTTL whether answered or not.
const (
	challengeBucket    = "ptyhost_relay_challenges"
	challengeBucketTTL = 2 * issuer.ChallengeTTL
)

// challengeKV is issuer.ChallengeStore in the cluster's NATS key-value
// store.
type challengeKV struct{ kv jetstream.KeyValue }

func openChallengeKV(c *cluster) (*challengeKV, error) {
	js, err := jetstream.New(c.nc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrClusterUnavailable, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*clusterTimeout)
	defer cancel()
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: challengeBucket, History: 1,
		TTL: challengeBucketTTL, Replicas: max(c.rl.cfg.NATSReplicas, 1)})
	if err != nil {
		return nil, fmt.Errorf("%w: challenge bucket: %w", ErrClusterUnavailable, err)
	}
	return &challengeKV{kv: kv}, nil
}

// Put implements issuer.ChallengeStore.
func (s *challengeKV) Put(ctx context.Context, ch string, exp time.Time) error {
	_, err := s.kv.Create(ctx, ch, []byte(strconv.FormatInt(exp.Unix(), 10)))
	return err
}

// Take implements issuer.ChallengeStore: the delete is conditional on
// the revision read, so of two logins naming one challenge only one
// takes it.
func (s *challengeKV) Take(ctx context.Context, ch string) (time.Time, bool, error) {
	ent, err := s.kv.Get(ctx, ch)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	if err := s.kv.Delete(ctx, ch, jetstream.LastRevision(ent.Revision())); err != nil {
		if isCASConflict(err) {
			return time.Time{}, false, nil
		}
		return time.Time{}, false, err
	}
	exp, err := strconv.ParseInt(string(ent.Value()), 10, 64)
	if err != nil {
		return time.Time{}, false, nil
	}
	return time.Unix(exp, 0), true, nil
}
