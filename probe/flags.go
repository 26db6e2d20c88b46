package probe

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// AddFlags sets c to the probe's defaults and adds the flags over it to
// fs, one for each of Settings; bootstrap adds --bootstrap, for a probe of
// a cluster kbf did not start (kbf run takes the addresses from its own).
// kbf probe, run, bench, tune and watch share them.
func (c *Config) AddFlags(fs *pflag.FlagSet, bootstrap bool) {
	*c = Defaults()
	if bootstrap {
		fs.StringSliceVar(&c.Bootstrap, "bootstrap", c.Bootstrap, "Kafka bootstrap addresses (default kbf up's brokers, 127.0.0.1:19092-19094)")
		fs.Lookup("bootstrap").DefValue = "[]" // said in the usage, in fewer columns
	}
	for _, s := range Settings {
		v := s.Value(c)
		fl := fs.VarPF(v, s.Name, "", s.Usage)
		if v.Type() == "bool" {
			fl.NoOptDefVal = "true" // --kip951 alone is --kip951=true
		}
		if fl.DefValue == "0s" {
			fl.DefValue = "0" // left out of the usage, as pflag's own durations' "0s" is
		}
	}
}

// CheckBootstrap refuses a --bootstrap address that is not host:port with
// a port from 1 to 65535, before anything dials it.
func CheckBootstrap(addrs []string) error {
	if len(addrs) == 0 {
		return fmt.Errorf("--bootstrap: empty; give host:port[,host:port…]")
	}
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(strings.TrimSpace(a))
		if err != nil {
			return fmt.Errorf("--bootstrap %q: want host:port ([v6-address]:port for an IPv6 address)", a)
		}
		if host == "" || strings.ContainsAny(host, " /\t") {
			return fmt.Errorf("--bootstrap %q: no host; want host:port", a)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("--bootstrap %q: port %q: want a number from 1 to 65535", a, port)
		}
	}
	return nil
}
