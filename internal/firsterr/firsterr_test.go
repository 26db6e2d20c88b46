package firsterr

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestKeepFirst(t *testing.T) {
	var k Keeper
	if k.Err() != nil {
		t.Fatalf("zero Keeper: %v", k.Err())
	}
	first, second := errors.New("first"), errors.New("second")
	k.Keep(nil)
	k.Keep(first)
	k.Keep(second)
	k.Keep(nil)
	if !errors.Is(k.Err(), first) || errors.Is(k.Err(), second) {
		t.Fatalf("Err() = %v, want %v", k.Err(), first)
	}
}

func TestFlushCallsEveryWriter(t *testing.T) {
	boom := errors.New("disk full")
	var calls []string
	writer := func(name string, err error) func() error {
		return func() error { calls = append(calls, name); return err }
	}
	tests := []struct {
		name    string
		before  error
		flushes []func() error
		want    string
	}{
		{name: "none fails", flushes: []func() error{writer("a", nil), writer("b", nil)}},
		{name: "second fails", flushes: []func() error{writer("a", nil), writer("b", boom)}, want: "write files: disk full"},
		{name: "both fail, first kept", flushes: []func() error{writer("a", boom), writer("b", errors.New("other"))},
			want: "write files: disk full"},
		{name: "an earlier error stays", before: errors.New("earlier"),
			flushes: []func() error{writer("a", boom), writer("b", nil)}, want: "earlier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls = nil
			var k Keeper
			k.Keep(tt.before)
			err := k.Flush("write files", tt.flushes...)
			if len(calls) != 2 {
				t.Errorf("flushed %v, want both writers", calls)
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Flush() = %q, want %q", got, tt.want)
			}
			if tt.want == "write files: disk full" && !errors.Is(err, boom) {
				t.Errorf("Flush() = %v does not wrap the writer's error", err)
			}
		})
	}
}

func TestKeepConcurrent(t *testing.T) {
	var k Keeper
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { k.Keep(errors.New("late")) })
	}
	wg.Wait()
	if k.Err() == nil {
		t.Fatal("no error kept")
	}
}

// lockSpy is a sync.Locker that records whether it was held.
type lockSpy struct{ held bool }

func (l *lockSpy) Lock()   { l.held = true }
func (l *lockSpy) Unlock() { l.held = false }

func TestFlushFilesOrderAndLock(t *testing.T) {
	boom := errors.New("disk full")
	tests := []struct {
		name               string
		rows, readers, log error
		want               string
	}{
		{name: "none fails"},
		{name: "rows fail first", rows: boom, readers: errors.New("reader"), log: errors.New("log"), want: "write messages: disk full"},
		{name: "a reader fails", readers: boom, log: errors.New("log"), want: "disk full"},
		{name: "the log fails", log: boom, want: "write client log: disk full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var k Keeper
			var lock lockSpy
			var calls []string
			writer := func(name string, err error, held bool) func() error {
				return func() error {
					calls = append(calls, name)
					if lock.held != held {
						t.Errorf("%s written with the lock held %v, want %v", name, lock.held, held)
					}
					return err
				}
			}
			k.FlushFiles(Files{Lock: &lock, What: "write messages", Rows: writer("rows", tt.rows, true),
				Readers: writer("readers", tt.readers, false), Log: writer("log", tt.log, false)})
			if got := strings.Join(calls, " "); got != "rows readers log" {
				t.Errorf("flushed %q, want rows, readers, log", got)
			}
			got := ""
			if err := k.Err(); err != nil {
				got = err.Error()
				if !errors.Is(err, boom) {
					t.Errorf("Err() = %v does not wrap the writer's error", err)
				}
			}
			if got != tt.want {
				t.Errorf("Err() = %q, want %q", got, tt.want)
			}
		})
	}
}
