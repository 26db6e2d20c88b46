package kafkasec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kbf-project/kbf/internal/spell"
)

// kafkaKeys are the configurations Kafka's Java producer, consumer and
// admin clients define (Kafka 4.x: CommonClientConfigs, SslConfigs,
// SaslConfigs, ProducerConfig, ConsumerConfig, AdminClientConfig). A key in
// a --command-config that is neither one of these nor one kbf applies is
// most likely misspelt: the clients would ignore it, as Kafka's do, and a
// misspelt security.protocol would leave the connection in plain text.
var kafkaKeys = []string{
	// common
	"bootstrap.servers", "client.dns.lookup", "client.id", "client.rack",
	"connections.max.idle.ms", "metadata.max.age.ms", "metadata.recovery.strategy",
	"metadata.recovery.rebootstrap.trigger.ms", "metric.reporters", "metrics.num.samples",
	"metrics.recording.level", "metrics.sample.window.ms", "auto.include.jmx.reporter",
	"enable.metrics.push", "receive.buffer.bytes", "send.buffer.bytes",
	"reconnect.backoff.ms", "reconnect.backoff.max.ms", "retry.backoff.ms", "retry.backoff.max.ms",
	"request.timeout.ms", "socket.connection.setup.timeout.ms", "socket.connection.setup.timeout.max.ms",
	"default.api.timeout.ms", "security.providers", "config.providers",
	// security
	"security.protocol",
	"ssl.protocol", "ssl.provider", "ssl.cipher.suites", "ssl.enabled.protocols",
	"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.keystore.key",
	"ssl.keystore.certificate.chain", "ssl.key.password",
	"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.certificates",
	"ssl.keymanager.algorithm", "ssl.trustmanager.algorithm", "ssl.endpoint.identification.algorithm",
	"ssl.secure.random.implementation", "ssl.engine.factory.class",
	"sasl.mechanism", "sasl.jaas.config", "sasl.kerberos.service.name", "sasl.kerberos.kinit.cmd",
	"sasl.kerberos.ticket.renew.window.factor", "sasl.kerberos.ticket.renew.jitter",
	"sasl.kerberos.min.time.before.relogin", "sasl.client.callback.handler.class",
	"sasl.login.callback.handler.class", "sasl.login.class", "sasl.login.refresh.window.factor",
	"sasl.login.refresh.window.jitter", "sasl.login.refresh.min.period.seconds",
	"sasl.login.refresh.buffer.seconds", "sasl.login.connect.timeout.ms", "sasl.login.read.timeout.ms",
	"sasl.login.retry.backoff.max.ms", "sasl.login.retry.backoff.ms",
	"sasl.oauthbearer.scope.claim.name", "sasl.oauthbearer.sub.claim.name",
	"sasl.oauthbearer.token.endpoint.url", "sasl.oauthbearer.jwks.endpoint.url",
	"sasl.oauthbearer.jwks.endpoint.refresh.ms", "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms",
	"sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", "sasl.oauthbearer.clock.skew.seconds",
	"sasl.oauthbearer.expected.audience", "sasl.oauthbearer.expected.issuer",
	"sasl.oauthbearer.header.urlencode", "sasl.oauthbearer.jwt.retriever.class",
	"sasl.oauthbearer.jwt.validator.class", "sasl.oauthbearer.client.credentials.client.id",
	"sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.scope",
	"sasl.oauthbearer.assertion.algorithm", "sasl.oauthbearer.assertion.claim.aud",
	"sasl.oauthbearer.assertion.claim.exp.seconds", "sasl.oauthbearer.assertion.claim.iss",
	"sasl.oauthbearer.assertion.claim.jti.include", "sasl.oauthbearer.assertion.claim.nbf.seconds",
	"sasl.oauthbearer.assertion.claim.sub", "sasl.oauthbearer.assertion.file",
	"sasl.oauthbearer.assertion.private.key.file", "sasl.oauthbearer.assertion.private.key.passphrase",
	"sasl.oauthbearer.assertion.template.file",
	// producer
	"acks", "batch.size", "buffer.memory", "compression.type", "compression.gzip.level",
	"compression.lz4.level", "compression.zstd.level", "delivery.timeout.ms", "enable.idempotence",
	"interceptor.classes", "key.serializer", "value.serializer", "linger.ms", "max.block.ms",
	"max.in.flight.requests.per.connection", "max.request.size", "metadata.max.idle.ms",
	"partitioner.class", "partitioner.ignore.keys", "partitioner.adaptive.partitioning.enable",
	"partitioner.availability.timeout.ms", "retries", "transaction.timeout.ms", "transactional.id",
	"transaction.two.phase.commit.enable",
	// consumer
	"allow.auto.create.topics", "auto.commit.interval.ms", "auto.offset.reset", "check.crcs",
	"client.rack", "enable.auto.commit", "exclude.internal.topics", "fetch.max.bytes",
	"fetch.max.wait.ms", "fetch.min.bytes", "group.id", "group.instance.id", "group.protocol",
	"group.remote.assignor", "heartbeat.interval.ms", "isolation.level", "key.deserializer",
	"value.deserializer", "max.partition.fetch.bytes", "max.poll.interval.ms", "max.poll.records",
	"partition.assignment.strategy", "session.timeout.ms", "share.acknowledgement.mode",
	// admin
	"bootstrap.controllers",
}

// unknownKeyWarnings names each key of props that neither kbf nor Kafka's
// clients know, as Kafka's own tools do, with the nearest known key when
// one is a slip away.
func unknownKeyWarnings(file string, props []Property) []string {
	var out []string
	for _, p := range props {
		if slices.Contains(kafkaKeys, p.Key) || slices.Contains(known, p.Key) {
			continue
		}
		w := fmt.Sprintf("%s:%d: the configuration '%s' was supplied but isn't a known config; Kafka's clients ignore it", file, p.Line, p.Key)
		if near := nearest(p.Key); near != "" {
			w += fmt.Sprintf(" (did you mean %s?)", near)
		}
		out = append(out, w)
	}
	return out
}

// nearest is the known key within a few edits of key, "" when none is.
func nearest(key string) string {
	best, bestD := "", 3
	if len(key) > 12 {
		bestD = 4
	}
	for _, k := range kafkaKeys {
		if d := spell.Distance(strings.ToLower(key), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}
