package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// recordsSeeds are inputs for the records' tests: quoted fields across
// lines, bare and broken quotes, CR LF and lone CRs, empty lines, rows of
// the wrong width and a last line cut short.
var recordsSeeds = []string{
	"partition,offset,seq\n0,1042,0\n0,1043,1\n",
	"a,b,c\n\n1,2,3\r\n\r\n4,5,6",
	"a,b,c\n1,\"x, \"\"y\"\"\r\nz\",3\n4,5,6\n",
	"a,b,c\n1,\"open\n2,3,4\n",
	"a,b,c\n1,x\"y,3\n4,5,6\n",
	"a,b,c\n1,\"x\"y,3\n4,5,6",
	"a,b,c\n1,2\n1,2,3,4\n\"a\"\n",
	"a,b,c\r1,2,3\r",
	"a,b,c\n1,2,3\r\r\n\r",
	"\"a\nb\",c,d\n\"\"\n,,\n",
	strings.Repeat("x", readerBuffer+10) + ",1,2\n1,\"" + strings.Repeat("y", 5000) + "\",3\n",
}

// readAll reads every record and its fields' positions, and the error that
// ends them, then one read more, as lineReader does after an error.
func readAll(read func() ([]string, error), pos func(int) (int, int)) (recs [][]string, poss [][][2]int, errs []error) {
	for i := 0; ; i++ {
		rec, err := read()
		recs = append(recs, append([]string(nil), rec...))
		var ps [][2]int
		for j := range rec {
			l, c := pos(j)
			ps = append(ps, [2]int{l, c})
		}
		poss = append(poss, ps)
		errs = append(errs, err)
		if err != nil && !errors.Is(err, csv.ErrFieldCount) {
			rec, err = read()
			recs = append(recs, append([]string(nil), rec...))
			errs = append(errs, err)
			return recs, poss, errs
		}
	}
}

// checkRecords compares recordReader with encoding/csv on data.
func checkRecords(t *testing.T, data []byte, fields int) {
	t.Helper()
	cr := csv.NewReader(bytes.NewReader(data))
	cr.ReuseRecord = true
	cr.FieldsPerRecord = fields
	wantRecs, wantPos, wantErrs := readAll(cr.Read, cr.FieldPos)
	rr := newRecordReader(bytes.NewReader(data), fields)
	var r record
	read := func() ([]string, error) {
		err := rr.Read(&r)
		if r.len() == 0 {
			return nil, err
		}
		return r.strings(nil), err
	}
	gotRecs, gotPos, gotErrs := readAll(read, func(i int) (int, int) { return r.pos[i][0], r.pos[i][1] })
	if !reflect.DeepEqual(gotRecs, wantRecs) || !reflect.DeepEqual(gotPos, wantPos) || !reflect.DeepEqual(gotErrs, wantErrs) {
		t.Errorf("%q, %d fields:\nrecords %q\npositions %v\nerrors %v\nwant\n%q\n%v\n%v",
			data, fields, gotRecs, gotPos, gotErrs, wantRecs, wantPos, wantErrs)
	}
}

// TestRecordsAsCSV: recordReader reads what encoding/csv reads, field for
// field, position for position, error for error.
func TestRecordsAsCSV(t *testing.T) {
	for _, s := range recordsSeeds {
		for fields := 1; fields <= 4; fields++ {
			checkRecords(t, []byte(s), fields)
		}
	}
}

func FuzzRecordsAsCSV(f *testing.F) {
	for _, s := range recordsSeeds {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, fields uint8) {
		checkRecords(t, data, int(fields%8)+1)
	})
}
