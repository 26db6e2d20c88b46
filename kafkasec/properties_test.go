package kafkasec

import (
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseProperties(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Property
	}{
		{"equals", "a=1\nb = 2\n", []Property{{"a", "1", 1}, {"b", "2", 2}}},
		{"colon and space separators", "a: 1\nb 2\nc\t\t=3", []Property{{"a", "1", 1}, {"b", "2", 2}, {"c", "3", 3}}},
		{"comments and blank lines", "# x=1\n  ! y=2\n\n   \nz=3\n", []Property{{"z", "3", 5}}},
		{"continuation drops the next line's leading space", "sasl.jaas.config=Mod required \\\n    username=\"u\" \\\n    password=\"p\";\nnext=1",
			[]Property{{"sasl.jaas.config", `Mod required username="u" password="p";`, 1}, {"next", "1", 4}}},
		{"even backslashes do not continue", "a=x\\\\\nb=y", []Property{{"a", `x\`, 1}, {"b", "y", 2}}},
		{"escapes", `k\=ey=v\tal\u0041\:`, []Property{{"k=ey", "v\talA:", 1}}},
		{"CRLF and CR line ends", "a=1\r\nb=2\rc=3", []Property{{"a", "1", 1}, {"b", "2", 2}, {"c", "3", 3}}},
		{"a key given twice keeps its last value", "a=1\nb=2\na=3", []Property{{"a", "3", 3}, {"b", "2", 2}}},
		{"empty value", "ssl.endpoint.identification.algorithm=\n", []Property{{"ssl.endpoint.identification.algorithm", "", 1}}},
		{"key alone", "lonely", []Property{{"lonely", "", 1}}},
		{"value keeps inner and trailing spaces", "a = x y  ", []Property{{"a", "x y  ", 1}}},
		{"continuation at end of file", "a=x\\", []Property{{"a", "x", 1}}},
		{"bytes are ISO-8859-1, as Java reads them", "p=\xe9t\xc3\xa9", []Property{{"p", "\u00e9t\u00c3\u00a9", 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProperties("f", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("property %d: got %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestParsePropertiesError(t *testing.T) {
	_, err := ParseProperties("client.properties", strings.NewReader("a=1\n\nb=\\u12G4"))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 {
		t.Fatalf("got %v, want a ParseError at line 3", err)
	}
	if want := `client.properties:3: value of b: malformed \uxxxx escape`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %q, want it to start with %q", err, want)
	}
}

func TestParseJAAS(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		module  string
		options map[string]string
		wantErr string
	}{
		{name: "plain", in: `org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="alice-secret";`,
			module: "org.apache.kafka.common.security.plain.PlainLoginModule", options: map[string]string{"username": "alice", "password": "alice-secret"}},
		{name: "quotes, escapes and spaces in values", in: `M required username="a b" password="p\"w;d=\\x";`,
			module: "M", options: map[string]string{"username": "a b", "password": `p"w;d=\x`}},
		{name: "single quotes and words", in: `M optional username=bob password='x y' tokenauth=true;`,
			module: "M", options: map[string]string{"username": "bob", "password": "x y", "tokenauth": "true"}},
		{name: "comments", in: "M required /* who */ username=\"u\" // the user\n password=\"p\";",
			module: "M", options: map[string]string{"username": "u", "password": "p"}},
		{name: "no options", in: "M required;", module: "M", options: map[string]string{}},
		{name: "missing semicolon", in: `M required username="u" password="p"`, wantErr: "the ';' that ends M's options is missing"},
		{name: "unclosed quote", in: `M required username="u password="p";`, wantErr: "not closed"},
		{name: "really unclosed quote", in: `M required username="u;`, wantErr: "not closed"},
		{name: "no flag", in: `M username="u";`, wantErr: "expected a control flag"},
		{name: "two modules", in: `M required; N required;`, wantErr: "holds 2 login modules"},
		{name: "empty", in: ``, wantErr: "holds 0 login modules"},
		{name: "no value", in: `M required username=;`, wantErr: "expected a value after username="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := parseJAAS(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Module != tt.module || len(e.Options) != len(tt.options) {
				t.Fatalf("got %+v, want module %s options %v", e, tt.module, tt.options)
			}
			for k, v := range tt.options {
				if e.Options[k] != v {
					t.Errorf("option %s: got %q, want %q", k, e.Options[k], v)
				}
			}
		})
	}
}

func FuzzParseProperties(f *testing.F) {
	f.Add("a=1\nb: 2\\\n  3\n# c\n")
	f.Add(`k\u0041=\t`)
	f.Fuzz(func(t *testing.T, in string) {
		props, err := ParseProperties("f", strings.NewReader(in))
		if err != nil {
			return
		}
		for _, p := range props {
			if p.Line < 1 {
				t.Fatalf("property %q at line %d", p.Key, p.Line)
			}
		}
	})
}

func FuzzParseJAAS(f *testing.F) {
	f.Add(`M required username="a\"b" password='c';`)
	f.Fuzz(func(t *testing.T, in string) {
		parseJAAS(in) // must not panic or hang
	})
}

func TestWritePropertiesRoundTrip(t *testing.T) {
	m := map[string]string{
		"sasl.password":     `p@ss=w:rd #1! \ "q"`,
		"ssl.ca.location":   "/tmp/a b/ca.pem",
		" key with spaces ": " leading and trailing ",
		"unicode":           "mot de passe é ✓ 😀",
		"control":           "a\tb\nc\rd\fe\x01",
		"empty":             "",
	}
	path := t.TempDir() + "/librdkafka.properties"
	if err := WriteProperties(path, m); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	props, err := ParseProperties(path, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(props) != len(m) {
		t.Fatalf("read %d properties, want %d: %+v", len(props), len(m), props)
	}
	for _, p := range props {
		if m[p.Key] != p.Value {
			t.Errorf("%q = %q, want %q", p.Key, p.Value, m[p.Key])
		}
	}
}

func FuzzWriteProperties(f *testing.F) {
	f.Add("k", "v")
	f.Add(" #k", "\\u0041 😀")
	f.Fuzz(func(t *testing.T, k, v string) {
		if k == "" || !utf8.ValidString(k) || !utf8.ValidString(v) {
			return
		}
		path := t.TempDir() + "/p"
		if err := WriteProperties(path, map[string]string{k: v}); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		props, err := ParseProperties(path, strings.NewReader(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		if len(props) != 1 || props[0].Key != k || props[0].Value != v {
			t.Fatalf("wrote %q=%q, read %+v", k, v, props)
		}
	})
}
