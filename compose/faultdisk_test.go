package compose

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestFaultDisks(t *testing.T) {
	ctx := context.Background()
	p, err := loadProject(ctx, source{env: map[string]string{}, faultDisks: map[string]string{"k2": "/srv/kbf-faultfs/kbf-k2/mnt"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.spec("k2", "img").Host.Binds; !slices.Equal(got, []string{"/srv/kbf-faultfs/kbf-k2/mnt:/var/lib/kafka/data"}) {
		t.Errorf("k2's binds %v, want its layer's mount point on its log directory", got)
	}
	if got := p.spec("k1", "img").Host.Binds; got != nil {
		t.Errorf("k1's binds %v, want none", got)
	}
	plain, err := loadProject(ctx, source{env: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	if p.spec("k2", "img").hash() == plain.spec("k2", "img").hash() {
		t.Error("k2 on a layer has the configuration hash of k2 on its own directory: it would not be recreated")
	}
	if p.spec("k1", "img").hash() != plain.spec("k1", "img").hash() {
		t.Error("k1's configuration changed with k2's disk")
	}
	// The one-replica topic stays off a broker on a layer.
	cl, err := newCluster(Options{Env: map[string]string{}, FaultDisks: map[string]string{"k1": "/srv/m"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := cl.topics[1].Brokers; !slices.Equal(b, []int32{2}) {
		t.Errorf("one-replica topic on %v, want broker 2 (k1 is on a layer)", b)
	}

	for _, tc := range []struct {
		name  string
		disks map[string]string
		want  string
	}{
		{"not a node", map[string]string{"k9": "/m"}, "no Kafka node k9"},
		{"relative", map[string]string{"k1": "mnt"}, `"mnt" is not an absolute path`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadProject(ctx, source{env: map[string]string{}, faultDisks: tc.disks})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}
