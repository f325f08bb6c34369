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

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// Program is a linked plan ready to evaluate: the plan's data (Linked) and
// its built-ins resolved to OPA's implementations. It is immutable and safe
// for concurrent use.
type Program struct {
	plans    []*Plan
	funcs    []*Function
	builtins []*builtinFunc // by Stmt.Builtin
}

// Linked is a plan after linking, as plain data: functions and blocks
// resolved to pointers, locals to indexes, constants made into terms. Only
// the built-ins are left by name, as they are OPA's functions. Link makes
// it from a plan; a generator can write it out as Go source, which the Go
// compiler lays out as static data, so that a program starts with its plan
// linked (Load). A Linked is never changed once made.
type Linked struct {
	Plans    []*Plan
	Funcs    []*Function // Funcs[i].ID is i
	Builtins []string    // by Stmt.Builtin
}

// Plan is an entrypoint: its blocks run in order until one breaks or
// returns.
type Plan struct {
	Name    string
	Blocks  []*Block
	NLocals int
}

// Function is a planned function: a rule, or a function of the policy.
type Function struct {
	Name    string
	ID      int // its index in Linked.Funcs, and its memo slot
	Params  []int
	Ret     int
	Blocks  []*Block
	NLocals int
	Memo    bool // the params are exactly input and data: one value per evaluation
}

// Block is a sequence of statements.
type Block struct {
	Stmts []Stmt
}

// Opcode is what a statement does.
type Opcode uint8

// The statements of a plan, one for each of package ir's (a
// MakeNumberRefStmt is an OpMakeNumber with the number linked). The zero
// Opcode is none, so that a statement left empty is refused by Load.
const (
	OpAssignVar Opcode = iota + 1
	OpAssignVarOnce
	OpAssignInt
	OpResetLocal
	OpCallFunc
	OpCallBuiltin
	OpDot
	OpLen
	OpEqual
	OpNotEqual
	OpIsArray
	OpIsObject
	OpIsSet
	OpIsDefined
	OpIsUndefined
	OpMakeNull
	OpMakeNumber
	OpMakeArray
	OpMakeObject
	OpMakeSet
	OpArrayAppend
	OpObjectInsert
	OpObjectInsertOnce
	OpObjectMerge
	OpSetAdd
	OpBlock
	OpBreak
	OpScan
	OpNot
	OpReturn
	OpResultSetAdd
	OpNop
	opCount
)

var opcodeNames = [...]string{"", "OpAssignVar", "OpAssignVarOnce", "OpAssignInt", "OpResetLocal", "OpCallFunc",
	"OpCallBuiltin", "OpDot", "OpLen", "OpEqual", "OpNotEqual", "OpIsArray", "OpIsObject", "OpIsSet",
	"OpIsDefined", "OpIsUndefined", "OpMakeNull", "OpMakeNumber", "OpMakeArray", "OpMakeObject", "OpMakeSet",
	"OpArrayAppend", "OpObjectInsert", "OpObjectInsertOnce", "OpObjectMerge", "OpSetAdd", "OpBlock",
	"OpBreak", "OpScan", "OpNot", "OpReturn", "OpResultSetAdd", "OpNop"}

// String is the opcode's name, as this package declares it.
func (op Opcode) String() string {
	if op > 0 && op < opCount {
		return opcodeNames[op]
	}
	return "Opcode(" + strconv.Itoa(int(op)) + ")"
}

// Operand is a local variable or, when Term is set, a constant.
type Operand struct {
	Local int
	Term  *ast.Term
}

// Stmt is one linked statement; which fields matter depends on Op.
type Stmt struct {
	Op      Opcode
	A, B    Operand // sources: value and key, or the two operands compared
	Target  int     // local written, or the collection local added to
	Local2  int     // a second local (scan value, merge operand)
	Index   int     // break index; capacity of a new array
	Term    *ast.Term
	Blocks  []*Block
	Func    *Function // the function called
	Builtin int       // the built-in called, an index of Linked.Builtins
	Args    []Operand
	Loc     *ast.Location // where a message about the statement points
}

type builtinFunc struct {
	name     string
	impl     topdown.BuiltinFunc
	relation bool // the call's value is the array of every output
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
	l, err := LinkData(p, caps)
	if err != nil {
		return nil, err
	}
	return Load(l, caps)
}

// LinkData is Link without resolving the built-ins: the linked plan as
// data, to write out as source or to compare.
func LinkData(p *ir.Policy, caps *ast.Capabilities) (*Linked, error) {
	if caps == nil {
		return nil, &LinkError{Msg: "no capabilities given: the built-ins a plan may call must be named"}
	}
	if p.Static == nil || p.Plans == nil || p.Funcs == nil {
		return nil, &LinkError{Msg: "the plan has no static data, plans or functions"}
	}
	allowed := allowedBuiltins(caps)
	l := &linker{
		strings:  make([]*ast.Term, len(p.Static.Strings)),
		funcs:    map[string]*Function{},
		builtins: map[string]int{},
		refused:  map[string]string{},
		out:      &Linked{},
	}
	for i, s := range p.Static.Strings {
		l.strings[i] = ast.StringTerm(s.Value)
	}
	for _, f := range p.Static.Files {
		l.files = append(l.files, f.Value)
	}
	// A declared built-in that cannot be linked is refused where it is
	// called, so the message names the rule.
	for _, b := range p.Static.BuiltinFuncs {
		if _, err := resolveBuiltin(b.Name, allowed); err != nil {
			l.refused[b.Name] = err.Error()
			continue
		}
		if _, dup := l.builtins[b.Name]; !dup {
			l.builtins[b.Name] = len(l.out.Builtins)
			l.out.Builtins = append(l.out.Builtins, b.Name)
		}
	}
	// Functions first, so that a call can point at any of them.
	for i, f := range p.Funcs.Funcs {
		fn := &Function{Name: f.Name, ID: i, Ret: int(f.Return), Memo: len(f.Params) == 2}
		for _, prm := range f.Params {
			fn.Params = append(fn.Params, int(prm))
		}
		l.funcs[f.Name] = fn
		l.out.Funcs = append(l.out.Funcs, fn)
	}
	for i, f := range p.Funcs.Funcs {
		if err := l.function(l.out.Funcs[i], f.Blocks); err != nil {
			return nil, err
		}
	}
	for _, pl := range p.Plans.Plans {
		lp := &Plan{Name: pl.Name}
		if err := l.plan(lp, pl.Blocks); err != nil {
			return nil, err
		}
		l.out.Plans = append(l.out.Plans, lp)
	}
	return l.out, nil
}

func allowedBuiltins(caps *ast.Capabilities) map[string]*ast.Builtin {
	allowed := make(map[string]*ast.Builtin, len(caps.Builtins))
	for _, b := range caps.Builtins {
		allowed[b.Name] = b
	}
	return allowed
}

// resolveBuiltin finds the implementation of a built-in the capabilities
// allow: this package's own where it has one, else OPA's.
func resolveBuiltin(name string, allowed map[string]*ast.Builtin) (*builtinFunc, error) {
	decl, ok := allowed[name]
	if !ok {
		return nil, fmt.Errorf("built-in %s is not allowed: the checker's capabilities leave it out (no network, environment, clock or randomness)", name)
	}
	bf := &builtinFunc{name: name, impl: topdown.GetBuiltin(name), relation: decl.Relation}
	if fast, ok := fastBuiltins[name]; ok {
		bf.impl = fast
	}
	if bf.impl == nil {
		return nil, fmt.Errorf("built-in %s is not implemented", name)
	}
	return bf, nil
}

// Load makes a program of a linked plan: it resolves the built-ins, which
// caps must allow. It trusts the statements, as LinkData made them (written
// out as source or not): looking at each of them would cost a check more
// than the rules it runs, as it would bring every rule's statements into
// memory. Verify looks at them.
func Load(l *Linked, caps *ast.Capabilities) (*Program, error) {
	if caps == nil {
		return nil, &LinkError{Msg: "no capabilities given: the built-ins a plan may call must be named"}
	}
	allowed := allowedBuiltins(caps)
	p := &Program{plans: l.Plans, funcs: l.Funcs, builtins: make([]*builtinFunc, len(l.Builtins))}
	for i, name := range l.Builtins {
		bf, err := resolveBuiltin(name, allowed)
		if err != nil {
			return nil, &LinkError{Msg: err.Error()}
		}
		p.builtins[i] = bf
	}
	if err := l.checkFuncs(); err != nil {
		return nil, err
	}
	return p, nil
}

// checkFuncs requires each function at the index its ID names, which
// calls and memo slots go by.
func (l *Linked) checkFuncs() error {
	for i, fn := range l.Funcs {
		if fn == nil || fn.ID != i {
			return &LinkError{Msg: fmt.Sprintf("function %d of the linked plan is missing or out of place", i)}
		}
	}
	return nil
}

// Verify checks every statement of l: known opcodes, locals inside their
// frame, calls to l's own functions with their number of arguments,
// built-ins l names, blocks where a statement needs them. A Linked that
// LinkData made passes; one written out by an older generator, or changed
// since, may not.
func (l *Linked) Verify() error {
	if err := l.checkFuncs(); err != nil {
		return err
	}
	for _, fn := range l.Funcs {
		if err := l.check(fn.Blocks, fn.NLocals, fn.Name); err != nil {
			return err
		}
	}
	for _, pl := range l.Plans {
		if err := l.check(pl.Blocks, pl.NLocals, pl.Name); err != nil {
			return err
		}
	}
	return nil
}

// check is Verify's look at the statements of one function or plan: known
// opcodes, locals inside the frame, calls to this program's functions with
// their number of arguments, and built-ins it names.
func (l *Linked) check(blocks []*Block, nlocals int, where string) error {
	bad := func(format string, args ...any) error {
		return &LinkError{Msg: fmt.Sprintf("%s: ", where) + fmt.Sprintf(format, args...)}
	}
	local := func(n int) bool { return n >= 0 && n < nlocals }
	operand := func(o Operand) bool { return o.Term != nil || local(o.Local) }
	for _, b := range blocks {
		if b == nil {
			return bad("a block is missing")
		}
		for i := range b.Stmts {
			st := &b.Stmts[i]
			if st.Op == 0 || st.Op >= opCount || !local(st.Target) || !local(st.Local2) || !operand(st.A) || !operand(st.B) {
				return bad("statement %d has an unknown opcode or a local outside its frame", i)
			}
			for _, a := range st.Args {
				if !operand(a) {
					return bad("statement %d passes a local outside its frame", i)
				}
			}
			switch st.Op {
			case OpCallFunc:
				if st.Func == nil || st.Func.ID < 0 || st.Func.ID >= len(l.Funcs) || l.Funcs[st.Func.ID] != st.Func || len(st.Args) != len(st.Func.Params) {
					return bad("statement %d calls a function outside the plan", i)
				}
			case OpCallBuiltin:
				if st.Builtin < 0 || st.Builtin >= len(l.Builtins) {
					return bad("statement %d calls a built-in the plan does not name", i)
				}
			case OpAssignInt, OpMakeNumber:
				if st.Term == nil {
					return bad("statement %d has no constant", i)
				}
			case OpBlock, OpScan, OpNot:
				if st.Op != OpBlock && len(st.Blocks) != 1 {
					return bad("statement %d has a malformed block", i)
				}
				if err := l.check(st.Blocks, nlocals, where); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Plans names the entrypoints, in the order Eval returns their results.
func (p *Program) Plans() []string {
	names := make([]string, len(p.plans))
	for i, pl := range p.plans {
		names[i] = pl.Name
	}
	return names
}

type linker struct {
	strings  []*ast.Term
	files    []string
	funcs    map[string]*Function
	builtins map[string]int    // index in out.Builtins
	refused  map[string]string // why a declared built-in cannot be called
	out      *Linked
	maxLocal int
}

func (l *linker) function(fn *Function, src []*ir.Block) error {
	l.maxLocal = fn.Ret
	for _, prm := range fn.Params {
		l.maxLocal = max(l.maxLocal, prm)
	}
	blocks, err := l.blocks(src)
	if err != nil {
		return fmt.Errorf("%w (function %s)", err, fn.Name)
	}
	fn.Blocks, fn.NLocals = blocks, l.maxLocal+1
	return nil
}

func (l *linker) plan(pl *Plan, src []*ir.Block) error {
	l.maxLocal = int(ir.Data)
	blocks, err := l.blocks(src)
	if err != nil {
		return fmt.Errorf("%w (plan %s)", err, pl.Name)
	}
	pl.Blocks, pl.NLocals = blocks, l.maxLocal+1
	return nil
}

func (l *linker) blocks(bs []*ir.Block) ([]*Block, error) {
	out := make([]*Block, len(bs))
	for i, b := range bs {
		lb, err := l.block(b)
		if err != nil {
			return nil, err
		}
		out[i] = lb
	}
	return out, nil
}

func (l *linker) block(b *ir.Block) (*Block, error) {
	if b == nil {
		return &Block{}, nil
	}
	out := &Block{Stmts: make([]Stmt, 0, len(b.Stmts))}
	for _, s := range b.Stmts {
		ls, err := l.stmt(s)
		if err != nil {
			return nil, err
		}
		out.Stmts = append(out.Stmts, ls)
	}
	return out, nil
}

func (l *linker) local(x ir.Local) int {
	n := int(x)
	l.maxLocal = max(l.maxLocal, n)
	return n
}

func (l *linker) operand(o ir.Operand) (Operand, error) {
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
		return Operand{Local: l.local(v)}, nil
	case ir.StringIndex:
		if int(v) < 0 || int(v) >= len(l.strings) {
			return Operand{}, &LinkError{Msg: fmt.Sprintf("string constant %d is out of range", v)}
		}
		return Operand{Term: l.strings[v]}, nil
	case ir.Bool:
		return Operand{Term: ast.BooleanTerm(bool(v))}, nil
	}
	return Operand{}, &LinkError{Msg: fmt.Sprintf("unknown operand %v", o.Value)}
}

func (l *linker) location(loc *ir.Location) *ast.Location {
	file := ""
	if loc.File >= 0 && loc.File < len(l.files) {
		file = l.files[loc.File]
	}
	return &ast.Location{File: file, Row: loc.Row, Col: loc.Col}
}

func (l *linker) stmt(s ir.Stmt) (Stmt, error) {
	var (
		out Stmt
		err error
	)
	// setOperand links one operand into dst; the first error is kept.
	setOperand := func(dst *Operand, src ir.Operand) {
		if err == nil {
			*dst, err = l.operand(src)
		}
	}
	switch s := s.(type) {
	case *ir.AssignVarStmt:
		out = Stmt{Op: OpAssignVar, Target: l.local(s.Target)}
		setOperand(&out.A, s.Source)
	case *ir.AssignVarOnceStmt:
		out = Stmt{Op: OpAssignVarOnce, Target: l.local(s.Target), Loc: l.location(&s.Location)}
		setOperand(&out.A, s.Source)
	case *ir.AssignIntStmt:
		out = Stmt{Op: OpAssignInt, Target: l.local(s.Target), Term: ast.InternedTerm(int(s.Value))}
	case *ir.ResetLocalStmt:
		out = Stmt{Op: OpResetLocal, Target: l.local(s.Target)}
	case *ir.CallStmt:
		out = Stmt{Target: l.local(s.Result), Loc: l.location(&s.Location), Args: make([]Operand, len(s.Args))}
		for i := range s.Args {
			setOperand(&out.Args[i], s.Args[i])
		}
		if fn, ok := l.funcs[s.Func]; ok {
			out.Op, out.Func = OpCallFunc, fn
			if len(s.Args) != len(fn.Params) {
				return Stmt{}, &LinkError{Msg: fmt.Sprintf("%s is called with %d arguments, it takes %d", s.Func, len(s.Args), len(fn.Params))}
			}
		} else if why, ok := l.refused[s.Func]; ok {
			return Stmt{}, &LinkError{Msg: why, Location: out.Loc}
		} else if b, ok := l.builtins[s.Func]; ok {
			out.Op, out.Builtin = OpCallBuiltin, b
		} else {
			return Stmt{}, &LinkError{Msg: fmt.Sprintf("call to %s, which is neither a planned function nor a declared built-in", s.Func), Location: out.Loc}
		}
	case *ir.DotStmt:
		out = Stmt{Op: OpDot, Target: l.local(s.Target)}
		setOperand(&out.A, s.Source)
		setOperand(&out.B, s.Key)
	case *ir.LenStmt:
		out = Stmt{Op: OpLen, Target: l.local(s.Target)}
		setOperand(&out.A, s.Source)
	case *ir.EqualStmt:
		out = Stmt{Op: OpEqual}
		setOperand(&out.A, s.A)
		setOperand(&out.B, s.B)
	case *ir.NotEqualStmt:
		out = Stmt{Op: OpNotEqual}
		setOperand(&out.A, s.A)
		setOperand(&out.B, s.B)
	case *ir.IsArrayStmt:
		out = Stmt{Op: OpIsArray}
		setOperand(&out.A, s.Source)
	case *ir.IsObjectStmt:
		out = Stmt{Op: OpIsObject}
		setOperand(&out.A, s.Source)
	case *ir.IsSetStmt:
		out = Stmt{Op: OpIsSet}
		setOperand(&out.A, s.Source)
	case *ir.IsDefinedStmt:
		out = Stmt{Op: OpIsDefined, Target: l.local(s.Source)}
	case *ir.IsUndefinedStmt:
		out = Stmt{Op: OpIsUndefined, Target: l.local(s.Source)}
	case *ir.MakeNullStmt:
		out = Stmt{Op: OpMakeNull, Target: l.local(s.Target)}
	case *ir.MakeNumberIntStmt:
		out = Stmt{Op: OpMakeNumber, Target: l.local(s.Target), Term: ast.IntNumberTerm(int(s.Value))}
	case *ir.MakeNumberRefStmt:
		if s.Index < 0 || s.Index >= len(l.strings) {
			return Stmt{}, &LinkError{Msg: fmt.Sprintf("number constant %d is out of range", s.Index)}
		}
		raw := string(l.strings[s.Index].Value.(ast.String))
		if _, err := strconv.ParseFloat(raw, 64); errors.Is(err, strconv.ErrSyntax) {
			return Stmt{}, &LinkError{Msg: fmt.Sprintf("number constant %q is not a number", raw)}
		}
		out = Stmt{Op: OpMakeNumber, Target: l.local(s.Target), Term: ast.NumberTerm(json.Number(raw))}
	case *ir.MakeArrayStmt:
		out = Stmt{Op: OpMakeArray, Target: l.local(s.Target), Index: int(max(0, min(s.Capacity, math.MaxInt16)))}
	case *ir.MakeObjectStmt:
		out = Stmt{Op: OpMakeObject, Target: l.local(s.Target)}
	case *ir.MakeSetStmt:
		out = Stmt{Op: OpMakeSet, Target: l.local(s.Target)}
	case *ir.ArrayAppendStmt:
		out = Stmt{Op: OpArrayAppend, Target: l.local(s.Array)}
		setOperand(&out.A, s.Value)
	case *ir.ObjectInsertStmt:
		out = Stmt{Op: OpObjectInsert, Target: l.local(s.Object)}
		setOperand(&out.A, s.Key)
		setOperand(&out.B, s.Value)
	case *ir.ObjectInsertOnceStmt:
		out = Stmt{Op: OpObjectInsertOnce, Target: l.local(s.Object), Loc: l.location(&s.Location)}
		setOperand(&out.A, s.Key)
		setOperand(&out.B, s.Value)
	case *ir.ObjectMergeStmt:
		out = Stmt{Op: OpObjectMerge, Target: l.local(s.Target), A: Operand{Local: l.local(s.A)}, B: Operand{Local: l.local(s.B)}, Loc: l.location(&s.Location)}
	case *ir.SetAddStmt:
		out = Stmt{Op: OpSetAdd, Target: l.local(s.Set)}
		setOperand(&out.A, s.Value)
	case *ir.BlockStmt:
		out = Stmt{Op: OpBlock}
		out.Blocks, err = l.blocks(s.Blocks)
	case *ir.BreakStmt:
		out = Stmt{Op: OpBreak, Index: int(s.Index)}
	case *ir.ScanStmt:
		out = Stmt{Op: OpScan, A: Operand{Local: l.local(s.Source)}, Target: l.local(s.Key), Local2: l.local(s.Value)}
		var b *Block
		b, err = l.block(s.Block)
		out.Blocks = []*Block{b}
	case *ir.NotStmt:
		out = Stmt{Op: OpNot}
		var b *Block
		b, err = l.block(s.Block)
		out.Blocks = []*Block{b}
	case *ir.ReturnLocalStmt:
		out = Stmt{Op: OpReturn, Target: l.local(s.Source)}
	case *ir.ResultSetAddStmt:
		out = Stmt{Op: OpResultSetAdd, Target: l.local(s.Value)}
	case *ir.NopStmt:
		out = Stmt{Op: OpNop}
	default:
		// WithStmt and CallDynamicStmt: the shipped policies need neither,
		// and a plan that does is refused here rather than run wrongly.
		var loc *ast.Location
		if ls, ok := s.(interface{ GetLocation() *ir.Location }); ok {
			loc = l.location(ls.GetLocation())
		}
		return Stmt{}, &LinkError{Msg: fmt.Sprintf("statement %T is not supported", s), Location: loc}
	}
	if err != nil {
		return Stmt{}, err
	}
	return out, nil
}
