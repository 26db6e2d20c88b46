package timeline

import (
	"regexp"

	"github.com/kbf-project/kbf/results"
)

// The reference probes' clients (clients/librdkafka, clients/java) log in
// client.log's format but with their own text: librdkafka's facility and
// message, the Java logger's class and message. Their leader changes are
// read here, so each client's phase is dated from its own log as franz-go's
// is from its "metadata refresh topic partition data changed".

func init() {
	clientRules = append(clientRules,
		// The Java probe's own line (clients/java Main.noteLeaders): the
		// client's cached metadata names a new leader. The Java client's
		// own Metadata lines name the epoch, never the leader.
		//	kbf cached leader changed topic=orders partition=0 new_leader=2 old_leader=1
		clientRule{kind: KindClientLeader, msg: "kbf cached leader changed",
			keys: leaderKeys, need: []string{"topic", "partition", "new_leader"}},
	)
}

// A textRule recognises a client's message by a pattern, its groups named
// as the Kafka rules' are (topic, partition, leader, prev, epoch).
type textRule struct {
	kind Kind
	re   *regexp.Regexp
	// same is the kind when the line names the same leader on both sides
	// (librdkafka logs every partition of every metadata answer): a
	// refresh that changed nothing is a client fact, not a leader change.
	same Kind
}

var textRules = []textRule{
	// librdkafka src/rdkafka_topic.c, rd_kafka_toppar_leader_update, on
	// every metadata answer (facility BROKER):
	//	"%.*s [%"PRId32"]: leader %"PRId32" epoch %"PRId32" -> leader %"PRId32" epoch %"PRId32
	{kind: KindClientLeader, same: KindClientMetadataSame,
		re: regexp.MustCompile(`(?P<topic>[^\s\[\]]+) \[(?P<partition>\d+)\]: leader (?P<prev>-?\d+) epoch -?\d+ -> leader (?P<leader>-?\d+) epoch (?P<epoch>-?\d+)`)},
	// librdkafka src/rdkafka_topic.c, a KIP-951 leader hint in a produce or
	// fetch answer:
	//	"Partition %s(%s)[%"PRId32"]: updated with leader %"PRId32" and epoch %"PRId32
	{kind: KindClientRedirect,
		re: regexp.MustCompile(`Partition (?P<topic>[^\s(]+)\([^)]*\)\[(?P<partition>\d+)\]: updated with leader (?P<leader>-?\d+) and epoch (?P<epoch>-?\d+)`)},
}

// matchClientText recognises a line by textRules. A line no rule knows is
// not an event.
func matchClientText(l *results.ClientLine) (Event, bool, error) {
	for i := range textRules {
		tr := &textRules[i]
		m := tr.re.FindStringSubmatch(l.Msg)
		if m == nil {
			continue
		}
		e := newEvent(l.Time, string(l.Client), tr.kind)
		if err := fill(&e, tr.re, m); err != nil {
			return Event{}, true, err
		}
		if e.Leader < 0 {
			return Event{}, false, nil // the partition lost its leader: nothing learnt yet
		}
		if tr.same != KindUnknown && e.Leader == e.PrevLeader {
			e.Kind = tr.same
		}
		return e, true, nil
	}
	return Event{}, false, nil
}
