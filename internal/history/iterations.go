package history

import (
	"errors"
	"strconv"
	"strings"

	"github.com/h3a-check/h3a-check/internal/finding"
	"github.com/h3a-check/h3a-check/internal/ledger"
)

// iterationCount: CURRENT_TASK.json iteration_count counts the attempts at
// a task, so it goes down only when a human reset it after reviewing the
// failed attempts (gate_framework.md, Escalation Process). A human decision
// is an event by agent "human" that the gates ledger gained since the base;
// a new task_id starts its own count. gatesLedger is the ledger's path,
// compared before this file.
func iterationCount(gatesLedger string) func(*pair) []finding.Finding {
	return func(p *pair) []finding.Finding { return lowered(p, gatesLedger) }
}

func lowered(p *pair, gatesLedger string) []finding.Finding {
	base, _ := p.base.json.Value.(map[string]any)
	head, _ := p.head.json.Value.(map[string]any)
	baseN, ok1 := number(base["iteration_count"])
	headN, ok2 := number(head["iteration_count"])
	if !ok1 || !ok2 || headN >= baseN {
		return nil
	}
	// (Strings only: a malformed task_id may be an object, which == cannot
	// compare.)
	baseTask, _ := base["task_id"].(string)
	headTask, _ := head["task_id"].(string)
	if baseTask != headTask {
		return nil
	}
	task := "the task"
	if headTask != "" {
		task = "task " + quoteValue(headTask)
	}
	if decided, failed := p.c.humanDecisionSinceBase(gatesLedger); decided {
		if float64(len(failed)) <= headN {
			return nil
		}
		// The person reset the count (gate_framework.md, Escalation
		// Process: "4. Human reviews and provides guidance", "6. Reset
		// `iteration_count = 0` and retry"); each attempt that failed
		// after counts again, and a count below them erases attempts no
		// person reviewed.
		f := finding.IterationCountLowered.New(p.path,
			"iteration_count of %s went down from %s at base %s to %s in head, but GATES_LEDGER.md logs %d failed attempt%s after the last human decision (%s): "+
				"a reset counts from that decision, so the count is at least %d; attempts are reset only after a human reviewed them",
			task, quoteValue(base["iteration_count"]), p.commit, quoteValue(head["iteration_count"]), len(failed), plural(len(failed)),
			quoteText(eventText(failed[0])), len(failed))
		f.Pointer = "/iteration_count"
		return []finding.Finding{f}
	}
	f := finding.IterationCountLowered.New(p.path,
		"iteration_count of %s went down from %s at base %s to %s in head with no human decision recorded in between "+
			"(GATES_LEDGER.md gained no event by agent \"human\"); attempts are reset only after a human reviewed them",
		task, quoteValue(base["iteration_count"]), p.commit, quoteValue(head["iteration_count"]))
	f.Pointer = "/iteration_count"
	return []finding.Finding{f}
}

// number reads a JSON number, or a string holding one (countOf). A float is exact for any count of attempts,
// and unlike an exact reading it costs nothing for a number as large as
// the JSON reader accepts (9e29999 reads as +Inf).
func number(v any) (float64, bool) {
	n, ok := countOf(v)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}

// humanDecisionSinceBase reports whether the head's gates ledger holds an
// event by agent "human" that its base version does not, and gives the
// FAILED events logged after the last such decision. It is false when
// that cannot be shown: no parsed ledger in head, or a base ledger that
// could not be read or parsed. Whether that decision was a person's is the
// provenance of the event (Result.NewEvents), judged apart: a decision
// claimed by the change under review is needs-human, never an error here.
func (c *comparison) humanDecisionSinceBase(gatesLedger string) (decided bool, failedAfter []ledger.Event) {
	events, known := c.eventsSinceBase(gatesLedger)
	if !known {
		return false, nil
	}
	for _, e := range events {
		switch {
		case strings.EqualFold(e.Agent, "human"):
			decided, failedAfter = true, nil
		case decided && e.Status == "FAILED":
			failedAfter = append(failedAfter, e)
		}
	}
	return decided, failedAfter
}

// eventsSinceBase gives the events of the head's gates ledger that its
// base version does not hold. known is false when that cannot be shown:
// no parsed ledger in head, or a base ledger that could not be read or
// parsed.
func (c *comparison) eventsSinceBase(gatesLedger string) (events []ledger.Event, known bool) {
	d := c.head.Run.Docs[gatesLedger]
	if d == nil || !d.Parsed {
		return nil, false
	}
	head, ok := d.Ledger.(*ledger.GatesLedger)
	if !ok {
		return nil, false
	}
	var base []ledger.Event
	switch cmp, ok := c.compared[gatesLedger]; {
	case !ok:
		return nil, false
	case cmp.p != nil:
		b, ok := cmp.p.base.ledger.(*ledger.GatesLedger)
		if !ok {
			return nil, false
		}
		base = b.Events
	case cmp.exists:
		return nil, false // the base version could not be compared
	}
	// Events are matched as records, once each, so that an event moved
	// or copied is not new.
	left := map[ledger.Event]int{}
	for _, e := range base {
		e.Line = 0
		left[e]++
	}
	for _, e := range head.Events {
		line := e.Line
		e.Line = 0
		if left[e] > 0 {
			left[e]--
			continue
		}
		e.Line = line
		events = append(events, e)
	}
	return events, true
}

// newEvents gives, for each gates ledger of head, the lines of its events
// the base does not hold: every event when the base's version could not
// be compared, or the run is new.
func (c *comparison) newEvents(ledgers []string, all bool) map[string][]int {
	out := map[string][]int{}
	for _, path := range ledgers {
		d := c.head.Run.Docs[path]
		if d == nil || !d.Parsed {
			continue
		}
		head, ok := d.Ledger.(*ledger.GatesLedger)
		if !ok {
			continue
		}
		events, known := c.eventsSinceBase(path)
		if all || !known {
			events = head.Events
		}
		lines := []int{}
		for _, e := range events {
			lines = append(lines, e.Line)
		}
		out[path] = lines
	}
	return out
}
