package report

import "time"

// whyFirstAck explains the time between the last boundary the timeline shows
// and the first ack, from the client's own log.
func whyFirstAck(tr *Trial, p int32, from, to time.Time) []string {
	return nil
}
