package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestIsSecretKey(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"sasl.jaas.config", true},
		{"listener.name.sasl_plaintext.plain.sasl.jaas.config", true},
		{"listener.name.host.scram-sha-512.sasl.jaas.config", true},
		{"ssl.key.password", true},
		{"ssl.keystore.password", true},
		{"ssl.truststore.password", true},
		{"listener.name.host.ssl.keystore.password", true},
		{"ssl.keystore.key", true},
		{"ssl.keystore.certificate.chain", true},
		{"ssl.truststore.certificates", true},
		{"password.encoder.secret", true},
		{"password.encoder.old.secret", true},
		{"delegation.token.secret.key", true},
		{"sasl.oauthbearer.client.credentials.client.secret", true},
		{"sasl.oauthbearer.assertion.private.key.passphrase", true},
		{"producer.ssl.key.password", true},
		{"javax.net.ssl.keyStorePassword", true},
		{"SASL.JAAS.CONFIG", true},
		// Not secrets: what a reader needs, and names that only look near.
		{"sasl.mechanism", false},
		{"sasl.enabled.mechanisms", false},
		{"security.protocol", false},
		{"listener.security.protocol.map", false},
		{"ssl.keystore.location", false},
		{"ssl.keystore.type", false},
		{"password.encoder.key.length", false},
		{"password.encoder.cipher.algorithm", false},
		{"delegation.token.max.lifetime.ms", false},
		{"broker.session.timeout.ms", false},
		{"key.serializer", false},
		{"", false},
	} {
		if got := IsSecretKey(tc.key); got != tc.want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
}

func TestIsSecretEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"KAFKA_SSL_KEY_PASSWORD", true},
		{"KAFKA_LISTENER_NAME_HOST_PLAIN_SASL_JAAS_CONFIG", true},
		{"KAFKA_LISTENER_NAME_HOST_SCRAM___SHA___512_SASL_JAAS_CONFIG", true},
		{"KAFKA_PASSWORD_ENCODER_SECRET", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"GITHUB_TOKEN", true},
		{"api_key", true},
		{"DB_PASSWD", true},
		{"KAFKA_NODE_ID", false},
		{"KAFKA_LISTENERS", false},
		{"KAFKA_SASL_ENABLED_MECHANISMS", false},
		{"CLUSTER_ID", false},
		{"PATH", false},
	} {
		if got := IsSecretEnv(tc.name); got != tc.want {
			t.Errorf("IsSecretEnv(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMaskSetting(t *testing.T) {
	for _, tc := range []struct {
		name, key, value, want string
	}{
		{"plain listener", "listener.name.sasl_plaintext.plain.sasl.jaas.config",
			`org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="adm-s3cret" user_admin="adm-s3cret" user_probe="pr0be";`,
			`org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password=[hidden] user_admin=[hidden] user_probe=[hidden];`},
		{"scram client, escaped as a properties file may", "sasl.jaas.config",
			`org.apache.kafka.common.security.scram.ScramLoginModule required username\="alice" password\="x y\" z";`,
			`org.apache.kafka.common.security.scram.ScramLoginModule required username\="alice" password\=[hidden];`},
		{"oauth options unknown to kbf are hidden", "sasl.jaas.config",
			`org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="kbf" clientSecret="cs" someNewOption=abc;`,
			`org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="kbf" clientSecret=[hidden] someNewOption=[hidden];`},
		{"quote never closed", "sasl.jaas.config",
			`org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password="open`,
			`org.apache.kafka.common.security.plain.PlainLoginModule required username="a" password=[hidden]`},
		{"not a JAAS line", "sasl.jaas.config", "garbage with s3cret", Hidden},
		{"password", "ssl.key.password", "pw", Hidden},
		{"pem key", "ssl.keystore.key", "-----BEGIN PRIVATE KEY----- abc", Hidden},
		{"already hidden", "ssl.key.password", Hidden, Hidden},
		{"unset in Kafka's dump", "ssl.key.password", "null", "null"},
		{"empty", "ssl.key.password", "", ""},
		{"not a secret", "sasl.mechanism", "PLAIN", "PLAIN"},
		{"not a secret, a secret inside", "kafka.opts", "-Xmx1g -Dkbf.test.password=pw -Dother=1", "-Xmx1g -Dkbf.test.password=[hidden] -Dother=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MaskSetting(tc.key, tc.value)
			if got != tc.want {
				t.Errorf("MaskSetting(%q, %q)\n = %s\nwant %s", tc.key, tc.value, got, tc.want)
			}
			if again := MaskSetting(tc.key, got); again != got {
				t.Errorf("masking twice: %s, then %s", got, again)
			}
		})
	}
}

func TestMaskArg(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"--broker", "--broker"},
		{"broker.session.timeout.ms=9000", "broker.session.timeout.ms=9000"},
		{"ssl.truststore.certificates=-----BEGIN CERTIFICATE----- MIIB", "ssl.truststore.certificates=[hidden]"},
		{"b1:ssl.key.password=pw", "b1:ssl.key.password=[hidden]"},
		{"java:sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";",
			"java:sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=[hidden];"},
		{"--config=ssl.key.password=pw", "--config=ssl.key.password=[hidden]"},
		{"--on-ready=curl -u x --data password=pw", "--on-ready=curl -u x --data password=[hidden]"},
	} {
		if got := MaskArg(tc.arg); got != tc.want {
			t.Errorf("MaskArg(%q)\n = %s\nwant %s", tc.arg, got, tc.want)
		}
	}
}

func TestMaskLine(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"properties line", "listener.name.host.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=\"pw\" user_admin=\"pw\";",
			"listener.name.host.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" password=[hidden] user_admin=[hidden];"},
		{"Kafka's dump, hidden already", "\tssl.key.password = [hidden]", "\tssl.key.password = [hidden]"},
		{"Kafka's dump, unset", "\tsasl.jaas.config = null", "\tsasl.jaas.config = null"},
		{"a dump that shows one", "\tssl.truststore.certificates = -----BEGIN CERTIFICATE----- MII", "\tssl.truststore.certificates = [hidden]"},
		{"inside a log line", "[2026-01-02 03:04:05,678] INFO jaas user_probe=\"pr0be\" failed (x.Y)", "[2026-01-02 03:04:05,678] INFO jaas user_probe=[hidden] failed (x.Y)"},
		{"a log line with nothing", "[2026-01-02 03:04:05,678] INFO [Partition orders-0 broker=2] ISR updated to 2,3 and version updated to 5 (kafka.cluster.Partition)",
			"[2026-01-02 03:04:05,678] INFO [Partition orders-0 broker=2] ISR updated to 2,3 and version updated to 5 (kafka.cluster.Partition)"},
		{"names only", "These configurations '[listener.name.host.plain.sasl.jaas.config]' were supplied but are not used yet.",
			"These configurations '[listener.name.host.plain.sasl.jaas.config]' were supplied but are not used yet."},
		{"no equals", "password is pw", "password is pw"},
		{"an environment line", "KBF_TEST_API_TOKEN=t0k en", "KBF_TEST_API_TOKEN=[hidden]"},
		{"an environment line that is no secret", "KAFKA_NODE_ID=1", "KAFKA_NODE_ID=1"},
		{"environment inside a line", "env: PATH=/bin GITHUB_TOKEN=t0k HOME=/root", "env: PATH=/bin GITHUB_TOKEN=[hidden] HOME=/root"},
		{"a KAFKA_ variable of a secret setting", "KAFKA_LISTENER_NAME_HOST_PLAIN_SASL_JAAS_CONFIG=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"a\" password=\"p\";",
			"KAFKA_LISTENER_NAME_HOST_PLAIN_SASL_JAAS_CONFIG=[hidden]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MaskLine(tc.line); got != tc.want {
				t.Errorf("MaskLine\n  %s\n= %s\nwant %s", tc.line, got, tc.want)
			}
		})
	}
}

func TestMaskWriter(t *testing.T) {
	in := "a=1\nssl.key.password=pw\nlast user_x=\"pw\""
	var out bytes.Buffer
	w := MaskWriter(&out)
	// Written a byte at a time: lines are whole before they are masked.
	for i := range len(in) {
		if _, err := w.Write([]byte{in[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if want := "a=1\nssl.key.password=[hidden]\nlast user_x=[hidden]"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestMetaSecrets plants secrets in every setting meta.json records and
// checks none is in the file written, nor in a Meta read back from a file
// an older kbf wrote with them.
func TestMetaSecrets(t *testing.T) {
	planted := []string{"node-pw-1", "ctl-pw-2", "client-pw-3", "arg-pw-4", "note-pw-5"}
	m := &Meta{
		Kind:    "trial",
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Command: []string{"kbf", "run", "--config", "b1:ssl.key.password=" + planted[3], "--broker", "b1"},
		Cluster: Cluster{Nodes: map[string]map[string]string{
			"b1": {"broker.session.timeout.ms": "9000", "listener.name.host.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="` + planted[0] + `" user_admin="` + planted[0] + `";`},
			"c1": {"password.encoder.secret": planted[1], "process.roles": "controller"},
		}},
		Probe: Probe{Topic: "orders", Client: map[string]string{"acks": "all", "consumer.ssl.key.password": planted[2]}},
		Notes: []string{"a note quoting ssl.truststore.password=" + planted[4]},
	}
	dir := t.TempDir()
	if err := WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range planted {
		if bytes.Contains(b, []byte(p)) {
			t.Errorf("meta.json holds %q:\n%s", p, b)
		}
	}
	for _, keep := range []string{`username=\"admin\"`, `"broker.session.timeout.ms": "9000"`, "--broker", "PlainLoginModule required"} {
		if !bytes.Contains(b, []byte(keep)) {
			t.Errorf("meta.json lost %s:\n%s", keep, b)
		}
	}

	// An older kbf's file: the secrets as they were.
	old := strings.ReplaceAll(string(b), Hidden, planted[1])
	got, err := DecodeMeta(strings.NewReader(old), MetaFile)
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Cluster.Nodes["c1"]["password.encoder.secret"]; v != Hidden {
		t.Errorf("read back: password.encoder.secret = %q, want %s", v, Hidden)
	}
	if v := got.Cluster.Nodes["c1"]["process.roles"]; v != "controller" {
		t.Errorf("read back: process.roles = %q", v)
	}
}
