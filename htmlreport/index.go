package htmlreport

import (
	"fmt"
	"html/template"
	"io"

	"github.com/kbf-project/kbf/results"
)

// IndexRow is one incident's row of a watch's index page: its cells as
// the text index has them, and the link to its own page (relative to the
// index), "" when it has none.
type IndexRow struct {
	Cells []string
	Link  string
}

// IndexPage is a watch's directory as one offline page: a table of its
// incidents, each linking to its own report.html, and those that could not
// be read.
type IndexPage struct {
	Title   string
	Heads   []string
	Rows    []IndexRow
	NotRead []string
}

var indexTemplate = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse}th,td{padding:.3em .8em;text-align:left;border-bottom:1px solid #ddd}
th{background:#f4f4f4}td:first-child a{font-weight:600}.bad{color:#a00}
</style></head><body>
<h1>{{.Title}}</h1>
<table><thead><tr>{{range .Heads}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{$link := .Link}}{{range $i, $c := .Cells}}<td>{{if and (eq $i 0) $link}}<a href="{{$link}}">{{$c}}</a>{{else}}{{$c}}{{end}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{range .NotRead}}<p class="bad">not read: {{.}}</p>
{{end}}</body></html>
`))

// WriteIndex writes a watch's index page to dst, atomically.
func WriteIndex(dst string, p IndexPage) error {
	err := results.WriteFileAtomic(dst, func(w io.Writer) error { return indexTemplate.Execute(w, p) })
	if err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	return nil
}
