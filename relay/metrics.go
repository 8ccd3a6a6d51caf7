package relay

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the relay's Prometheus collectors, registered on the Relay's
// own registry so that two relays in one process do not collide.
type metrics struct {
	rooms           prometheus.Gauge
	legs            *prometheus.GaugeVec   // role
	framesIn        *prometheus.CounterVec // role
	bytesIn         *prometheus.CounterVec // role
	framesOut       *prometheus.CounterVec // role
	bytesOut        *prometheus.CounterVec // role
	snapshots       prometheus.Counter
	skips           prometheus.Counter
	backpressure    prometheus.Counter
	refusals        *prometheus.CounterVec // reason
	snapshotAsked   prometheus.Counter
	inputsDropped   prometheus.Counter
	inputsForwarded prometheus.Counter
	// inputsReplayed and inputsUnreplayed: Input written again to the
	// next host leg of an epoch, and Input of an ended leg that was not.
	inputsReplayed   prometheus.Counter
	inputsUnreplayed prometheus.Counter
}

func newMetrics(reg *prometheus.Registry) (*metrics, error) {
	m := &metrics{
		rooms: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ptyhost_relay_rooms", Help: "Rooms alive."}),
		legs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ptyhost_relay_legs", Help: "Legs attached, by role."}, []string{"role"}),
		framesIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ptyhost_relay_frames_in_total", Help: "Frames read from legs, by role."}, []string{"role"}),
		bytesIn: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ptyhost_relay_bytes_in_total", Help: "Bytes read from legs, by role."}, []string{"role"}),
		framesOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ptyhost_relay_frames_out_total", Help: "Frames written to legs, by role."}, []string{"role"}),
		bytesOut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ptyhost_relay_bytes_out_total", Help: "Bytes written to legs, by role."}, []string{"role"}),
		snapshots: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_snapshots_served_total", Help: "Snapshots a viewer started from (join, resume miss, skip)."}),
		skips: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_viewer_skips_total", Help: "Viewers skipped to a snapshot because they lagged."}),
		backpressure: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_backpressure_closes_total", Help: "Viewer legs closed because they could not keep up."}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ptyhost_relay_refusals_total", Help: "Dials and legs refused, by reason."}, []string{"reason"}),
		snapshotAsked: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_snapshot_requests_total", Help: "snapshot_request controls sent to hosts."}),
		inputsDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_inputs_dropped_total", Help: "Input frames consumed but not forwarded (pen admission, duplicates, gaps)."}),
		inputsForwarded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_inputs_forwarded_total", Help: "Input frames stamped and queued for the host."}),
		inputsReplayed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_inputs_replayed_total", Help: "Input frames written again to a host leg after an earlier leg of the epoch ended."}),
		inputsUnreplayed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_inputs_unreplayed_total", Help: "Input frames written to a host leg that ended and not replayed to the next: past the window's bounds, or for a host that does not deduplicate on the new leg's carrier."}),
	}
	for _, c := range []prometheus.Collector{m.rooms, m.legs, m.framesIn, m.bytesIn, m.framesOut, m.bytesOut,
		m.snapshots, m.skips, m.backpressure, m.refusals, m.snapshotAsked, m.inputsDropped, m.inputsForwarded,
		m.inputsReplayed, m.inputsUnreplayed} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
