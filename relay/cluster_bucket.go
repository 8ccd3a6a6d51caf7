package relay

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// replicatedBucketWait bounds how long a node waits for a replicated
// bucket's servers: the servers of a NATS cluster that start together
// elect a leader and learn of each other in seconds, and a bucket of three
// replicas cannot be placed before three servers are known.
const replicatedBucketWait = 2 * time.Minute

// openBucket creates or opens the cluster's key-value bucket with
// replicas copies. A bucket of one copy is asked for once; a replicated
// one is asked for again, with a growing pause, until replicatedBucketWait
// has passed, so that nodes started together with their NATS cluster do
// not fail for being first.
func openBucket(js jetstream.JetStream, replicas int) (jetstream.KeyValue, error) {
	return openBucketNamed(js, clusterBucket, replicas)
}

// openBucketNamed is openBucket for the bucket called name.
func openBucketNamed(js jetstream.JetStream, name string, replicas int) (jetstream.KeyValue, error) {
	cfg := jetstream.KeyValueConfig{Bucket: name, History: 1, Replicas: max(replicas, 1)}
	if cfg.Replicas == 1 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*clusterTimeout)
		defer cancel()
		return js.CreateOrUpdateKeyValue(ctx, cfg)
	}
	wait, stop := context.WithTimeout(context.Background(), replicatedBucketWait)
	defer stop()
	pause := 100 * time.Millisecond
	for {
		ctx, cancel := context.WithTimeout(wait, 5*clusterTimeout)
		kv, err := js.CreateOrUpdateKeyValue(ctx, cfg)
		cancel()
		if err == nil {
			return kv, nil
		}
		select {
		case <-wait.Done():
			return nil, err
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
	}
}
