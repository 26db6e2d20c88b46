package analysis

import (
	"fmt"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
)

// The audit weighs the read-back (log.csv) against what the probe saw
// acknowledged, and a record acknowledged but not read back is lost. That
// holds only when the read-back read the topic the probe wrote: a topic
// gone at the read-back, or deleted and made again under the same name
// (another kbf recreating the cluster under the trial), leaves the
// read-back empty or another topic's, and every record would read as
// lost. The trial records the topic's ID when it starts and at the
// read-back (results.Probe.TopicID, ReadBackTopicID); where they differ,
// or the topic was gone, the audit is not counted and the trial is
// invalid (verdict.TopicReplaced). A read-back of no row while the probe's
// reader read records, from a trial that recorded no IDs to tell, is not
// counted either: suspect, never a loss in the exit status. With the
// same ID at both ends it is the topic's own partitions emptied: counted.

// auditVoid is why a read-back is not audited: text "" when it is.
type auditVoid struct {
	text string
	// replaced: the topic was gone or made anew (invalid); else the
	// read-back's evidence is damaged (suspect).
	replaced bool
	// kept are notes on a read-back audited all the same.
	kept notes
}

// notes are the void's notes for the verdict: its text, or those kept.
func (v auditVoid) notes() notes {
	if v.text == "" {
		return v.kept
	}
	return notes{{text: v.text, damaged: true, replaced: v.replaced}}
}

// countableAudit is the audit in when it can be counted, from the trial's
// metadata m, the probe's reader's gaps g and its fault f; else nil and
// why not.
func countableAudit(m *results.Meta, in *integrity.Report, g *gaps.Report, f *results.Fault) (*integrity.Report, auditVoid) {
	if why := topicReplaced(m); why != "" {
		return nil, auditVoid{text: why, replaced: true}
	}
	empty := emptyReadBack(in, g, f)
	if len(empty) == 0 {
		return in, auditVoid{}
	}
	if sameTopic(m) {
		// The probe's own topic, read back empty: its partitions lost
		// every record from where the probe began.
		return in, auditVoid{kept: empty}
	}
	return nil, auditVoid{text: fmt.Sprintf("%s holds no row, though the probe's reader read %d record(s): the probe's topic may have been recreated under the trial (its ID was not recorded to tell), or the file is damaged or cut short, so loss cannot be counted",
		results.LogFile, received(g))}
}

// topicReplaced says, in one line, that the probe's topic was gone at the
// read-back or recreated during the trial, as the metadata m records its
// IDs; "" when it was not, or nothing was recorded to tell.
func topicReplaced(m *results.Meta) string {
	if m == nil {
		return ""
	}
	p := m.Probe
	switch {
	case p.ReadBackTopicGone:
		id := ""
		if p.TopicID != "" {
			id = " (ID " + p.TopicID + ")"
		}
		return fmt.Sprintf("the probe's topic %s%s was gone when the partitions were read back, so loss cannot be counted", p.Topic, id)
	case p.TopicID != "" && p.ReadBackTopicID != "" && p.TopicID != p.ReadBackTopicID:
		return fmt.Sprintf("the probe's topic %s was recreated during the trial (ID %s → %s): the read-back is another topic's, so loss cannot be counted", p.Topic, p.TopicID, p.ReadBackTopicID)
	}
	return ""
}

// sameTopic reports whether the metadata m records the probe's topic's ID
// at its start and the same at the read-back.
func sameTopic(m *results.Meta) bool {
	return m != nil && m.Probe.TopicID != "" && m.Probe.TopicID == m.Probe.ReadBackTopicID
}
