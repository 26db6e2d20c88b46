package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

func decodeJSON(b []byte) (any, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// lookup follows the dotted path key ("gaps.partitions.0.sent") into v, a
// decoded JSON document.
func lookup(v any, key string) (any, error) {
	for _, part := range strings.Split(key, ".") {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[part]
			if !ok {
				return nil, fmt.Errorf("%s: no %q", key, part)
			}
			v = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("%s: no element %q of %d", key, part, len(x))
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("%s: %q of a %T", key, part, v)
		}
	}
	return v, nil
}

// sameFigure reports whether got, as the page holds it (a number as text,
// or a word), is the value at key in the report document doc.
func sameFigure(doc any, key, got string) error {
	want, err := lookup(doc, key)
	if err != nil {
		return err
	}
	switch w := want.(type) {
	case json.Number:
		wf, err := w.Float64()
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		gf, err := strconv.ParseFloat(got, 64)
		if err != nil {
			return fmt.Errorf("%s: the page shows %q, not a number", key, got)
		}
		if gf != wf {
			return fmt.Errorf("%s: the page shows %v, report.json %v", key, gf, wf)
		}
	case string:
		if got != w {
			return fmt.Errorf("%s: the page shows %q, report.json %q", key, got, w)
		}
	default:
		return fmt.Errorf("%s: report.json holds a %T", key, want)
	}
	return nil
}
