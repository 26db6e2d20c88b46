package results

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode"
)

// jsonField is a JSON type error's field path as a meta.json's reader
// knows it: "probe.interval_ns", not encoding/json's "Meta.probe.interval_ns"
// (the Go types an embedded struct brings are no key of the file).
func jsonField(field string) string {
	parts := strings.Split(field, ".")
	out := parts[:0]
	for _, p := range parts {
		if p != "" && unicode.IsUpper(rune(p[0])) {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ".")
}

// locateValueError finds the field of b, decoded as a value of type t, whose
// own decoder failed: encoding/json reports a time.Time's or another
// Unmarshaler's error without the field. It returns the field's path and
// the error, or "" when none fails alone.
func locateValueError(b []byte, t reflect.Type) (string, error) {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return "", nil
	}
	return locate(v, t, "")
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

func locate(v any, t reflect.Type, path string) (string, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil {
		return "", nil
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		raw, _ := json.Marshal(v)
		if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
			return path, err
		}
		return "", nil
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return "", nil
		}
		for name, ft := range jsonFields(t) {
			if fv, ok := obj[name]; ok {
				if p, err := locate(fv, ft, join(name)); p != "" {
					return p, err
				}
			}
		}
	case reflect.Slice, reflect.Array:
		arr, _ := v.([]any)
		for i, e := range arr {
			if p, err := locate(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p, err
			}
		}
	case reflect.Map:
		obj, _ := v.(map[string]any)
		for k, e := range obj {
			if p, err := locate(e, t.Elem(), join(k)); p != "" {
				return p, err
			}
		}
	}
	return "", nil
}

// jsonFields are t's fields by JSON key, an embedded struct's promoted
// unless a shallower field has the key, as encoding/json does.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var embedded []reflect.Type
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			et := f.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				embedded = append(embedded, et)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	for _, et := range embedded {
		for k, ft := range jsonFields(et) {
			if _, ok := out[k]; !ok {
				out[k] = ft
			}
		}
	}
	return out
}

// checkTimes refuses a time of m outside EarliestTime–LatestTime: no trial
// ran then, and a difference of centuries overflows a time.Duration.
func checkTimes(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return checkTimes(v.Elem(), path)
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			if !t.IsZero() && (t.Before(EarliestTime) || t.After(LatestTime)) {
				return fmt.Errorf("%s %s: not a time a trial ran at; want one between %d and %d",
					path, t.UTC().Format(time.RFC3339Nano), EarliestTime.Year(), LatestTime.Year())
			}
			return nil
		}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			p := path
			switch {
			case name == "-":
				continue
			case f.Anonymous && name == "":
			case name == "":
				p = joinPath(path, f.Name)
			default:
				p = joinPath(path, name)
			}
			if err := checkTimes(v.Field(i), p); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if err := checkTimes(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if err := checkTimes(iter.Value(), joinPath(path, fmt.Sprint(iter.Key().Interface()))); err != nil {
				return err
			}
		}
	}
	return nil
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
