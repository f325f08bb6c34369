// Package regoplan evaluates Rego policies in the form OPA's planner gives
// them (package ir): an imperative plan of blocks, loops, lookups and calls
// over local variables, with the rule bodies already unified, the
// comprehensions expanded and the references resolved. Interpreting the
// plan needs neither the parser nor the compiler at run time and does far
// less per expression than OPA's top-down evaluator, which unifies terms
// and keeps bindings for every step.
//
// The semantics are those of OPA's WebAssembly target, which is the plan's
// reference implementation: a statement that is undefined leaves its
// block, BreakStmt{Index: n} leaves n+1 blocks, a ScanStmt is a loop inside
// a block (so from its body index 0 continues with the next element and
// index 1 leaves the scan), and a function with exactly the two parameters
// input and data is evaluated once per evaluation. Built-in functions are
// OPA's own implementations (topdown.GetBuiltin), so they give the same
// values and the same errors as the top-down evaluator (the few of
// fastBuiltins are written here, and tested against OPA's); an error inside a
// built-in makes the call undefined and is reported with the evaluation,
// as OPA does without strict built-in errors. A relation built-in (walk),
// whose call yields many outputs, gives the array of every output, which
// the plan then scans, as the WebAssembly target does.
//
// Only the built-ins of the capabilities given to Link are linked: a plan
// that calls any other one is refused with the location of the call, so a
// built-in the checker leaves out (a clock, randomness, the network) can
// never run, whatever plan is given.
package regoplan

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Program is a linked plan: functions and built-ins resolved to pointers,
// constants made into terms. It is immutable and safe for concurrent use.
type Program struct {
	plans []*plan
	funcs []*function
	files []string

	// lazy, for LinkLazily: the linker that links a plan or function on
	// its first evaluation, one at a time.
	lazy   *linker
	lazyMu sync.Mutex
}

type plan struct {
	name    string
	blocks  []*block
	nlocals int
	body    lazyBody
}

type function struct {
	name    string
	id      int
	params  []int
	ret     int
	blocks  []*block
	nlocals int
	memo    bool // params are exactly input and data
	body    lazyBody
}

// lazyBody is a plan's or function's blocks waiting to be linked: linked
// once, on first use, when the program was linked lazily.
type lazyBody struct {
	src  []*ir.Block // nil once linked, or when linked eagerly
	once sync.Once
	err  error
}

type block struct {
	stmts []stmt
}

type opcode uint8

const (
	opAssignVar opcode = iota
	opAssignVarOnce
	opAssignInt
	opResetLocal
	opCallFunc
	opCallBuiltin
	opDot
	opLen
	opEqual
	opNotEqual
	opIsArray
	opIsObject
	opIsSet
	opIsDefined
	opIsUndefined
	opMakeNull
	opMakeNumber
	opMakeArray
	opMakeObject
	opMakeSet
	opArrayAppend
	opObjectInsert
	opObjectInsertOnce
	opObjectMerge
	opSetAdd
	opBlock
	opBreak
	opScan
	opNot
	opReturn
	opResultSetAdd
	opNop
)

// operand is a local variable or, when term is set, a constant.
type operand struct {
	local int
	term  *ast.Term
}

// stmt is one linked statement; which fields matter depends on op.
type stmt struct {
	op      opcode
	a, b    operand // sources: value and key, or the two operands compared
	target  int     // local written, or the collection local added to
	local2  int     // a second local (scan value, merge operand)
	index   int     // break index; capacity of a new array
	term    *ast.Term
	blocks  []*block
	fn      *function // the function called; for a conflict, the one it is in
	builtin *builtinFunc
	args    []operand
	loc     *ast.Location
}

type builtinFunc struct {
	name     string
	impl     topdown.BuiltinFunc
	relation bool   // the call's value is the array of every output
	refused  string // why this built-in cannot be linked, when it cannot
}

// LinkError is a plan this interpreter cannot run: a statement it does not
// know, a call to a function the plan does not define, a built-in OPA does
// not implement or the capabilities leave out. Location, when known, is the
// rule's place in its policy file.
type LinkError struct {
	Msg      string
	Location *ast.Location
}

func (e *LinkError) Error() string {
	if e.Location != nil && e.Location.File != "" {
		return fmt.Sprintf("linking the policy plan: %s:%d: %s", e.Location.File, e.Location.Row, e.Msg)
	}
	return "linking the policy plan: " + e.Msg
}

// Link resolves a plan for evaluation. Every plan in p becomes an
// entrypoint, evaluated in order by Eval. Only the built-ins of caps can be
// called; a call to any other is refused.
func Link(p *ir.Policy, caps *ast.Capabilities) (*Program, error) {
	return link(p, caps, false)
}

// LinkLazily is Link that links each plan and function when it is first
// evaluated, so that a check pays only for the rules of the layouts it
// meets. A plan that does not link is then an error of the evaluation
// that reaches it, not of LinkLazily: it is for plans that Link is known to
// accept (the shipped plan, which the tests link whole).
func LinkLazily(p *ir.Policy, caps *ast.Capabilities) (*Program, error) {
	return link(p, caps, true)
}

func link(p *ir.Policy, caps *ast.Capabilities, lazily bool) (*Program, error) {
	if caps == nil {
		return nil, &LinkError{Msg: "no capabilities given: the built-ins a plan may call must be named"}
	}
	if p.Static == nil || p.Plans == nil || p.Funcs == nil {
		return nil, &LinkError{Msg: "the plan has no static data, plans or functions"}
	}
	allowed := make(map[string]*ast.Builtin, len(caps.Builtins))
	for _, b := range caps.Builtins {
		allowed[b.Name] = b
	}
	l := &linker{
		strings:  make([]*ast.Term, len(p.Static.Strings)),
		funcs:    map[string]*function{},
		builtins: map[string]*builtinFunc{},
		prog:     &Program{},
	}
	for i, s := range p.Static.Strings {
		l.strings[i] = ast.StringTerm(s.Value)
	}
	for _, f := range p.Static.Files {
		l.prog.files = append(l.prog.files, f.Value)
	}
	// A declared built-in that cannot be linked is refused where it is
	// called, so the message names the rule.
	for _, b := range p.Static.BuiltinFuncs {
		bf := &builtinFunc{name: b.Name}
		decl, ok := allowed[b.Name]
		switch {
		case !ok:
			bf.refused = fmt.Sprintf("built-in %s is not allowed: the checker's capabilities leave it out (no network, environment, clock or randomness)", b.Name)
		default:
			bf.impl, bf.relation = topdown.GetBuiltin(b.Name), decl.Relation
			if fast, ok := fastBuiltins[b.Name]; ok {
				bf.impl = fast
			}
			if bf.impl == nil {
				bf.refused = fmt.Sprintf("built-in %s is not implemented", b.Name)
			}
		}
		l.builtins[b.Name] = bf
	}
	// Functions first, so that a call can point at any of them.
	for i, f := range p.Funcs.Funcs {
		fn := &function{name: f.Name, id: i, ret: int(f.Return), memo: len(f.Params) == 2}
		for _, prm := range f.Params {
			fn.params = append(fn.params, int(prm))
		}
		l.funcs[f.Name] = fn
		l.prog.funcs = append(l.prog.funcs, fn)
	}
	if lazily {
		for i, f := range p.Funcs.Funcs {
			l.prog.funcs[i].body.src = f.Blocks
		}
		for _, pl := range p.Plans.Plans {
			l.prog.plans = append(l.prog.plans, &plan{name: pl.Name, body: lazyBody{src: pl.Blocks}})
		}
		l.prog.lazy = l
		return l.prog, nil
	}
	for i, f := range p.Funcs.Funcs {
		if err := l.function(l.prog.funcs[i], f.Blocks); err != nil {
			return nil, err
		}
	}
	for _, pl := range p.Plans.Plans {
		lp := &plan{name: pl.Name}
		if err := l.plan(lp, pl.Blocks); err != nil {
			return nil, err
		}
		l.prog.plans = append(l.prog.plans, lp)
	}
	return l.prog, nil
}

func (l *linker) function(fn *function, src []*ir.Block) error {
	l.fn = fn
	defer func() { l.fn = nil }()
	l.maxLocal = fn.ret
	for _, prm := range fn.params {
		l.maxLocal = max(l.maxLocal, prm)
	}
	blocks, err := l.blocks(src)
	if err != nil {
		return fmt.Errorf("%w (function %s)", err, fn.name)
	}
	fn.blocks, fn.nlocals = blocks, l.maxLocal+1
	return nil
}

func (l *linker) plan(pl *plan, src []*ir.Block) error {
	l.maxLocal = int(ir.Data)
	blocks, err := l.blocks(src)
	if err != nil {
		return fmt.Errorf("%w (plan %s)", err, pl.name)
	}
	pl.blocks, pl.nlocals = blocks, l.maxLocal+1
	return nil
}

// linkFunction links fn's blocks if they wait for it; safe for concurrent
// use.
func (p *Program) linkFunction(fn *function) error {
	if p.lazy == nil {
		return nil
	}
	fn.body.once.Do(func() {
		p.lazyMu.Lock()
		defer p.lazyMu.Unlock()
		fn.body.err = p.lazy.function(fn, fn.body.src)
		fn.body.src = nil
	})
	return fn.body.err
}

// linkPlan is linkFunction for a plan.
func (p *Program) linkPlan(pl *plan) error {
	if p.lazy == nil {
		return nil
	}
	pl.body.once.Do(func() {
		p.lazyMu.Lock()
		defer p.lazyMu.Unlock()
		pl.body.err = p.lazy.plan(pl, pl.body.src)
		pl.body.src = nil
	})
	return pl.body.err
}

// Plans names the entrypoints, in the order Eval returns their results.
func (p *Program) Plans() []string {
	names := make([]string, len(p.plans))
	for i, pl := range p.plans {
		names[i] = pl.name
	}
	return names
}

type linker struct {
	fn       *function // the function being linked; nil in a plan
	strings  []*ast.Term
	funcs    map[string]*function
	builtins map[string]*builtinFunc
	prog     *Program
	maxLocal int
}

func (l *linker) blocks(bs []*ir.Block) ([]*block, error) {
	out := make([]*block, len(bs))
	for i, b := range bs {
		lb, err := l.block(b)
		if err != nil {
			return nil, err
		}
		out[i] = lb
	}
	return out, nil
}

func (l *linker) block(b *ir.Block) (*block, error) {
	if b == nil {
		return &block{}, nil
	}
	out := &block{stmts: make([]stmt, 0, len(b.Stmts))}
	for _, s := range b.Stmts {
		ls, err := l.stmt(s)
		if err != nil {
			return nil, err
		}
		out.stmts = append(out.stmts, ls)
	}
	return out, nil
}

func (l *linker) local(x ir.Local) int {
	n := int(x)
	l.maxLocal = max(l.maxLocal, n)
	return n
}

func (l *linker) operand(o ir.Operand) (operand, error) {
	val := o.Value
	// OPA's JSON reader of plans gives operands as pointers.
	switch v := val.(type) {
	case *ir.Local:
		val = *v
	case *ir.StringIndex:
		val = *v
	case *ir.Bool:
		val = *v
	}
	switch v := val.(type) {
	case ir.Local:
		return operand{local: l.local(v)}, nil
	case ir.StringIndex:
		if int(v) < 0 || int(v) >= len(l.strings) {
			return operand{}, &LinkError{Msg: fmt.Sprintf("string constant %d is out of range", v)}
		}
		return operand{term: l.strings[v]}, nil
	case ir.Bool:
		return operand{term: ast.BooleanTerm(bool(v))}, nil
	}
	return operand{}, &LinkError{Msg: fmt.Sprintf("unknown operand %v", o.Value)}
}

func (l *linker) location(loc *ir.Location) *ast.Location {
	file := ""
	if loc.File >= 0 && loc.File < len(l.prog.files) {
		file = l.prog.files[loc.File]
	}
	return &ast.Location{File: file, Row: loc.Row, Col: loc.Col}
}

func (l *linker) stmt(s ir.Stmt) (stmt, error) {
	var (
		out stmt
		err error
	)
	// setOperand links one operand into dst; the first error is kept.
	setOperand := func(dst *operand, src ir.Operand) {
		if err == nil {
			*dst, err = l.operand(src)
		}
	}
	switch s := s.(type) {
	case *ir.AssignVarStmt:
		out = stmt{op: opAssignVar, target: l.local(s.Target)}
		setOperand(&out.a, s.Source)
	case *ir.AssignVarOnceStmt:
		out = stmt{op: opAssignVarOnce, target: l.local(s.Target), loc: l.location(&s.Location), fn: l.fn}
		setOperand(&out.a, s.Source)
	case *ir.AssignIntStmt:
		out = stmt{op: opAssignInt, target: l.local(s.Target), term: ast.InternedTerm(int(s.Value))}
	case *ir.ResetLocalStmt:
		out = stmt{op: opResetLocal, target: l.local(s.Target)}
	case *ir.CallStmt:
		out = stmt{target: l.local(s.Result), loc: l.location(&s.Location), args: make([]operand, len(s.Args))}
		for i := range s.Args {
			setOperand(&out.args[i], s.Args[i])
		}
		if fn, ok := l.funcs[s.Func]; ok {
			out.op, out.fn = opCallFunc, fn
			if len(s.Args) != len(fn.params) {
				return stmt{}, &LinkError{Msg: fmt.Sprintf("%s is called with %d arguments, it takes %d", s.Func, len(s.Args), len(fn.params))}
			}
		} else if b, ok := l.builtins[s.Func]; ok {
			if b.refused != "" {
				return stmt{}, &LinkError{Msg: b.refused, Location: out.loc}
			}
			out.op, out.builtin = opCallBuiltin, b
		} else {
			return stmt{}, &LinkError{Msg: fmt.Sprintf("call to %s, which is neither a planned function nor a declared built-in", s.Func), Location: out.loc}
		}
	case *ir.DotStmt:
		out = stmt{op: opDot, target: l.local(s.Target)}
		setOperand(&out.a, s.Source)
		setOperand(&out.b, s.Key)
	case *ir.LenStmt:
		out = stmt{op: opLen, target: l.local(s.Target)}
		setOperand(&out.a, s.Source)
	case *ir.EqualStmt:
		out = stmt{op: opEqual}
		setOperand(&out.a, s.A)
		setOperand(&out.b, s.B)
	case *ir.NotEqualStmt:
		out = stmt{op: opNotEqual}
		setOperand(&out.a, s.A)
		setOperand(&out.b, s.B)
	case *ir.IsArrayStmt:
		out = stmt{op: opIsArray}
		setOperand(&out.a, s.Source)
	case *ir.IsObjectStmt:
		out = stmt{op: opIsObject}
		setOperand(&out.a, s.Source)
	case *ir.IsSetStmt:
		out = stmt{op: opIsSet}
		setOperand(&out.a, s.Source)
	case *ir.IsDefinedStmt:
		out = stmt{op: opIsDefined, target: l.local(s.Source)}
	case *ir.IsUndefinedStmt:
		out = stmt{op: opIsUndefined, target: l.local(s.Source)}
	case *ir.MakeNullStmt:
		out = stmt{op: opMakeNull, target: l.local(s.Target)}
	case *ir.MakeNumberIntStmt:
		out = stmt{op: opMakeNumber, target: l.local(s.Target), term: ast.IntNumberTerm(int(s.Value))}
	case *ir.MakeNumberRefStmt:
		if s.Index < 0 || s.Index >= len(l.strings) {
			return stmt{}, &LinkError{Msg: fmt.Sprintf("number constant %d is out of range", s.Index)}
		}
		raw := string(l.strings[s.Index].Value.(ast.String))
		if _, err := strconv.ParseFloat(raw, 64); errors.Is(err, strconv.ErrSyntax) {
			return stmt{}, &LinkError{Msg: fmt.Sprintf("number constant %q is not a number", raw)}
		}
		out = stmt{op: opMakeNumber, target: l.local(s.Target), term: ast.NumberTerm(json.Number(raw))}
	case *ir.MakeArrayStmt:
		out = stmt{op: opMakeArray, target: l.local(s.Target), index: int(max(0, min(s.Capacity, math.MaxInt16)))}
	case *ir.MakeObjectStmt:
		out = stmt{op: opMakeObject, target: l.local(s.Target)}
	case *ir.MakeSetStmt:
		out = stmt{op: opMakeSet, target: l.local(s.Target)}
	case *ir.ArrayAppendStmt:
		out = stmt{op: opArrayAppend, target: l.local(s.Array)}
		setOperand(&out.a, s.Value)
	case *ir.ObjectInsertStmt:
		out = stmt{op: opObjectInsert, target: l.local(s.Object)}
		setOperand(&out.a, s.Key)
		setOperand(&out.b, s.Value)
	case *ir.ObjectInsertOnceStmt:
		out = stmt{op: opObjectInsertOnce, target: l.local(s.Object), loc: l.location(&s.Location)}
		setOperand(&out.a, s.Key)
		setOperand(&out.b, s.Value)
	case *ir.ObjectMergeStmt:
		out = stmt{op: opObjectMerge, target: l.local(s.Target), a: operand{local: l.local(s.A)}, b: operand{local: l.local(s.B)}, loc: l.location(&s.Location)}
	case *ir.SetAddStmt:
		out = stmt{op: opSetAdd, target: l.local(s.Set)}
		setOperand(&out.a, s.Value)
	case *ir.BlockStmt:
		out = stmt{op: opBlock}
		out.blocks, err = l.blocks(s.Blocks)
	case *ir.BreakStmt:
		out = stmt{op: opBreak, index: int(s.Index)}
	case *ir.ScanStmt:
		out = stmt{op: opScan, a: operand{local: l.local(s.Source)}, target: l.local(s.Key), local2: l.local(s.Value)}
		var b *block
		b, err = l.block(s.Block)
		out.blocks = []*block{b}
	case *ir.NotStmt:
		out = stmt{op: opNot}
		var b *block
		b, err = l.block(s.Block)
		out.blocks = []*block{b}
	case *ir.ReturnLocalStmt:
		out = stmt{op: opReturn, target: l.local(s.Source)}
	case *ir.ResultSetAddStmt:
		out = stmt{op: opResultSetAdd, target: l.local(s.Value)}
	case *ir.NopStmt:
		out = stmt{op: opNop}
	default:
		// WithStmt and CallDynamicStmt: the shipped policies need neither,
		// and a plan that does is refused here rather than run wrongly.
		var loc *ast.Location
		if ls, ok := s.(interface{ GetLocation() *ir.Location }); ok {
			loc = l.location(ls.GetLocation())
		}
		return stmt{}, &LinkError{Msg: fmt.Sprintf("statement %T is not supported", s), Location: loc}
	}
	if err != nil {
		return stmt{}, err
	}
	return out, nil
}
