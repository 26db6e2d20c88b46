package probe

import (
	"cmp"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/results"
)

// The transactional producer's defaults: a transaction committed every
// DefaultTxnRecords records or every DefaultTxnInterval, whichever first.
// At the probe's default rate (three partitions, a record each every
// 20 ms) that is a commit about every 0.7 s: several per second of stall,
// as the probe's own resolution wants, and far fewer than its records.
const (
	DefaultTxnRecords  = 100
	DefaultTxnInterval = time.Second
)

// TxnTimeout is the transaction timeout the probe asks for
// (transaction.timeout.ms), and how long it waits for a transaction's
// records and its end before it gives up on it (results.TxnTimedOut). It
// is longer than a coordinator's failover (the broker's fencing, 9 s by
// default, then the new coordinator's load of __transaction_state), so a
// commit that the failover only delays is not timed out; and short enough
// that a transaction the probe gave up on is aborted by its coordinator
// before the trial reads its partitions back at read_committed.
const TxnTimeout = 30 * time.Second

// Transactional reports whether the probe writes in transactions.
func (c *Config) Transactional() bool { return c.Producer == results.ProducerTransactional }

// validateTxn checks the producer's settings.
func (c *Config) validateTxn() error {
	switch c.Producer {
	case "", results.ProducerIdempotent, results.ProducerTransactional:
	default:
		return fmt.Errorf("producer %q: want %s or %s", c.Producer, results.ProducerIdempotent, results.ProducerTransactional)
	}
	switch {
	case c.TxnRecords < 1:
		return fmt.Errorf("txn-records %d: must be at least 1", c.TxnRecords)
	case c.TxnInterval <= 0:
		return fmt.Errorf("txn-interval %v: must be positive", c.TxnInterval)
	case c.Transactional() && c.Acks != "all":
		return fmt.Errorf("producer %s: needs acks all (a transactional producer is idempotent)", c.Producer)
	}
	return nil
}

// TxnSettings are the transactional producer's settings as meta.json
// records them; nil for an idempotent producer. The transactional id is
// chosen by Identified.
func (c *Config) TxnSettings() *results.TxnSettings {
	if !c.Transactional() {
		return nil
	}
	return &results.TxnSettings{ID: c.TxnID, Records: c.TxnRecords, Interval: c.TxnInterval,
		Timeout: TxnTimeout, Isolation: "read_committed"}
}

// txnOpts are the transactional producer's options beyond the idempotent
// producer's.
func (c *Config) txnOpts() []kgo.Opt {
	return []kgo.Opt{kgo.TransactionalID(c.TxnID), kgo.TransactionTimeout(TxnTimeout)}
}

// txnEffective adds the transactional producer's settings to the client
// configuration in effect, e.
func (c *Config) txnEffective(e map[string]string) {
	e["producer"] = cmp.Or(c.Producer, results.ProducerIdempotent)
	if !c.Transactional() {
		return
	}
	e["transactional_id"] = c.TxnID
	e["txn_records"] = strconv.Itoa(c.TxnRecords)
	e["txn_interval"] = c.TxnInterval.String()
	e["transaction_timeout"] = TxnTimeout.String()
	e["consumer"] = "direct partition assignment, no group, read_committed"
}
