// pprofcheck: reads pprof files with pprof's own Go package (github.com/google/pprof/profile) and
// prints what the export tests compare, as one JSON object per file: Parse and CheckValid's
// verdict, the sample types, period, time and duration, the mappings, how many locations carry an
// inline chain (several lines), each function's flat and cumulative values (by the innermost line
// of the leaf location, as pprof's own -top counts them), the label keys, the sum of every value.
//
//	go run pprofcheck.go FILE...
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

type mapping struct {
	File    string `json:"file"`
	BuildID string `json:"build_id"`
	Start   uint64 `json:"start"`
	Limit   uint64 `json:"limit"`
	Offset  uint64 `json:"offset"`
}

type result struct {
	Error        string                `json:"error,omitempty"`
	SampleTypes  []string              `json:"sample_types"`
	PeriodType   string                `json:"period_type"`
	Period       int64                 `json:"period"`
	TimeNanos    int64                 `json:"time_nanos"`
	Duration     int64                 `json:"duration_nanos"`
	Mappings     []mapping             `json:"mappings"`
	Locations    int                   `json:"locations"`
	InlineLocs   int                   `json:"inline_locations"`
	Samples      int                   `json:"samples"`
	Totals       []int64               `json:"totals"`
	Flat         map[string][]int64    `json:"flat"`
	Cum          map[string][]int64    `json:"cum"`
	LabelKeys    map[string]int        `json:"label_keys"`
	Comments     []string              `json:"comments"`
	SystemNames  map[string]string     `json:"system_names"`
	Threads      map[string]int64      `json:"threads"`
}

func check(path string) result {
	var r result
	f, err := os.Open(path)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		r.Error = "parse: " + err.Error()
		return r
	}
	if err := p.CheckValid(); err != nil {
		r.Error = "CheckValid: " + err.Error()
		return r
	}
	for _, st := range p.SampleType {
		r.SampleTypes = append(r.SampleTypes, st.Type+"/"+st.Unit)
	}
	if p.PeriodType != nil {
		r.PeriodType = p.PeriodType.Type + "/" + p.PeriodType.Unit
	}
	r.Period, r.TimeNanos, r.Duration = p.Period, p.TimeNanos, p.DurationNanos
	for _, m := range p.Mapping {
		r.Mappings = append(r.Mappings, mapping{m.File, m.BuildID, m.Start, m.Limit, m.Offset})
	}
	r.Locations = len(p.Location)
	for _, l := range p.Location {
		if len(l.Line) > 1 {
			r.InlineLocs++
		}
	}
	n := len(p.SampleType)
	r.Totals = make([]int64, n)
	r.Flat, r.Cum = map[string][]int64{}, map[string][]int64{}
	r.LabelKeys, r.SystemNames, r.Threads = map[string]int{}, map[string]string{}, map[string]int64{}
	add := func(m map[string][]int64, k string, v []int64) {
		if m[k] == nil {
			m[k] = make([]int64, n)
		}
		for i := range v {
			m[k][i] += v[i]
		}
	}
	for _, s := range p.Sample {
		r.Samples++
		for i, v := range s.Value {
			r.Totals[i] += v
		}
		seen := map[string]bool{}
		for li, l := range s.Location {
			for lj, ln := range l.Line {
				if ln.Function == nil {
					continue
				}
				name := ln.Function.Name
				r.SystemNames[name] = ln.Function.SystemName
				if li == 0 && lj == 0 {
					add(r.Flat, name, s.Value)
				}
				if !seen[name] {
					seen[name] = true
					add(r.Cum, name, s.Value)
				}
			}
		}
		for k := range s.Label {
			r.LabelKeys[k]++
		}
		for k := range s.NumLabel {
			r.LabelKeys[k]++
		}
		if t, ok := s.NumLabel["tid"]; ok && len(t) > 0 {
			r.Threads[fmt.Sprint(t[0])] += s.Value[0]
		}
	}
	r.Comments = p.Comments
	return r
}

func main() {
	out := map[string]result{}
	for _, path := range os.Args[1:] {
		out[path] = check(path)
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
