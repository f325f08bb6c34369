package regoplan

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
)

// What a block's run ends with, besides a break index (0 or more): the
// block ran to its end, a function returned, or the evaluation stopped
// with an error (in state.err).
const (
	completed = -1
	returned  = -2
	aborted   = -3
)

// cancelEvery is how many statements run between two looks at the
// context: often enough to stop within microseconds, rarely enough to cost
// nothing measurable.
const cancelEvery = 1024

// Eval evaluates every plan of the program over input, with an empty data
// document. It returns each plan's result set, in the order of Plans: the
// values the plan added, for a rule entrypoint one object {"result": v}.
// builtinErrs are the errors of built-ins that made their call undefined.
// err is a conflict (two values for one complete rule or object key), a
// cancelled or expired context, or a plan this interpreter cannot run; it
// is a *topdown.Error, so topdown.IsCancel and its Code apply.
//
// A nil input is refused: every rule reading input would be undefined,
// and a policy whose rules are all undefined passes everything.
func (p *Program) Eval(ctx context.Context, input *ast.Term) (results [][]*ast.Term, builtinErrs []*topdown.Error, err error) {
	if input == nil {
		return nil, nil, &topdown.Error{Code: topdown.InternalErr, Message: "no input document given: every rule reading input would be undefined, so nothing is evaluated"}
	}
	return p.eval(ctx, input, ast.NewTerm(ast.NewObject()), nil)
}

// EvalPlans is Eval for the plans that run[i] selects, in the order of
// Plans; a plan not selected is not run and its result set is empty, as
// for a rule that is undefined. run must have one entry per plan.
func (p *Program) EvalPlans(ctx context.Context, input *ast.Term, run []bool) (results [][]*ast.Term, builtinErrs []*topdown.Error, err error) {
	if input == nil {
		return nil, nil, &topdown.Error{Code: topdown.InternalErr, Message: "no input document given: every rule reading input would be undefined, so nothing is evaluated"}
	}
	if len(run) != len(p.plans) {
		return nil, nil, &topdown.Error{Code: topdown.InternalErr, Message: fmt.Sprintf("%d plans selected or not, the program has %d", len(run), len(p.plans))}
	}
	return p.eval(ctx, input, ast.NewTerm(ast.NewObject()), run)
}

// eval is Eval with a data document, and with input undefined when nil;
// run, when not nil, selects the plans to run.
func (p *Program) eval(ctx context.Context, input, data *ast.Term, run []bool) (results [][]*ast.Term, builtinErrs []*topdown.Error, err error) {
	s := &state{
		prog:  p,
		ctx:   ctx,
		data:  data,
		memo:  make([]*ast.Term, len(p.funcs)),
		known: make([]bool, len(p.funcs)),
	}
	cancel := topdown.NewCancel()
	stop := context.AfterFunc(ctx, cancel.Cancel)
	defer stop()
	s.bctx = topdown.BuiltinContext{Context: ctx, Cancel: cancel, Cache: builtins.Cache{}}
	s.collect = func(t *ast.Term) error {
		if s.out == nil {
			s.out = t
		}
		return nil
	}
	s.collectAll = func(t *ast.Term) error {
		s.outs = append(s.outs, t)
		return nil
	}
	defer func() {
		// A plan or built-in that fails in a way nothing above foresaw
		// must end this run's evaluation, not the process.
		if r := recover(); r != nil {
			results, builtinErrs = nil, nil
			err = &topdown.Error{Code: topdown.InternalErr, Message: fmt.Sprintf("policy evaluation failed unexpectedly: %v", r)}
		}
	}()

	results = make([][]*ast.Term, len(p.plans))
	for i, pl := range p.plans {
		if run != nil && !run[i] {
			continue
		}
		fr := make([]*ast.Term, max(pl.NLocals, int(ir.Data)+1))
		fr[ir.Input], fr[ir.Data] = input, s.data
		s.results = nil
		for _, b := range pl.Blocks {
			r := s.run(b, fr)
			if r == aborted {
				return nil, nil, s.err
			}
			if r > 0 || r == returned {
				break
			}
		}
		results[i] = s.results
	}
	return results, s.builtinErrs, nil
}

type state struct {
	prog        *Program
	ctx         context.Context
	data        *ast.Term
	memo        []*ast.Term // by function id: the value of a rule
	known       []bool      // by function id: memo holds its value (nil: undefined)
	results     []*ast.Term
	builtinErrs []*topdown.Error
	err         error
	retval      *ast.Term
	fn          *Function   // the function running; nil in a plan
	scans       []*scanLoop // by depth of nesting, reused
	scanDepth   int
	stack       []*ast.Term // the locals of the functions being called
	steps       int
	bctx        topdown.BuiltinContext
	collect     func(*ast.Term) error // a built-in's output callback, made once
	out         *ast.Term             // what collect received
	collectAll  func(*ast.Term) error // a relation's output callback
	outs        []*ast.Term           // what collectAll received
}

func (s *state) fail(loc *ast.Location, code, format string, args ...any) int {
	s.err = &topdown.Error{Code: code, Message: fmt.Sprintf(format, args...), Location: loc}
	return aborted
}

func read(o Operand, fr []*ast.Term) *ast.Term {
	if o.Term != nil {
		return o.Term
	}
	return fr[o.Local]
}

// run executes one block and says how it ended: completed, returned,
// aborted, or the index of a break (0 when a statement was undefined),
// counted from this block.
func (s *state) run(b *Block, fr []*ast.Term) int {
	for i := range b.Stmts {
		st := &b.Stmts[i]
		if s.steps++; s.steps%cancelEvery == 0 && s.ctx.Err() != nil {
			return s.fail(nil, topdown.CancelErr, "policy evaluation cancelled: %v", s.ctx.Err())
		}
		switch st.Op {
		case OpAssignVar:
			fr[st.Target] = read(st.A, fr)
		case OpAssignVarOnce:
			v := read(st.A, fr)
			if cur := fr[st.Target]; cur != nil && v != nil && !cur.Equal(v) {
				return s.fail(st.Loc, topdown.ConflictErr, "%s", conflict(s.fn))
			}
			fr[st.Target] = v
		case OpAssignInt, OpMakeNumber:
			fr[st.Target] = st.Term
		case OpResetLocal:
			fr[st.Target] = nil
		case OpCallFunc, OpCallBuiltin:
			var (
				v *ast.Term
				r int
			)
			if st.Op == OpCallFunc {
				v, r = s.call(st, fr)
			} else {
				v, r = s.callBuiltin(st, fr)
			}
			if r == aborted {
				return aborted
			}
			if v == nil {
				return 0
			}
			fr[st.Target] = v
		case OpDot:
			v := dot(read(st.A, fr), read(st.B, fr))
			if v == nil {
				return 0
			}
			fr[st.Target] = v
		case OpLen:
			n, ok := length(read(st.A, fr))
			if !ok {
				return 0
			}
			fr[st.Target] = ast.InternedTerm(n)
		case OpEqual, OpNotEqual:
			a, b := read(st.A, fr), read(st.B, fr)
			if a == nil || b == nil || a.Equal(b) != (st.Op == OpEqual) {
				return 0
			}
		case OpIsArray:
			if v := read(st.A, fr); v == nil || !isArray(v) {
				return 0
			}
		case OpIsObject:
			if v := read(st.A, fr); v == nil || !isObject(v) {
				return 0
			}
		case OpIsSet:
			if v := read(st.A, fr); v == nil || !isSet(v) {
				return 0
			}
		case OpIsDefined:
			if fr[st.Target] == nil {
				return 0
			}
		case OpIsUndefined:
			if fr[st.Target] != nil {
				return 0
			}
		case OpMakeNull:
			fr[st.Target] = ast.NullTerm()
		case OpMakeArray:
			fr[st.Target] = ast.NewTerm(ast.NewArrayWithCapacity(st.Index))
		case OpMakeObject:
			fr[st.Target] = ast.NewTerm(ast.NewObject())
		case OpMakeSet:
			fr[st.Target] = ast.NewTerm(ast.NewSet())
		case OpArrayAppend:
			coll, v := fr[st.Target], read(st.A, fr)
			arr, ok := value[*ast.Array](coll)
			if !ok || v == nil {
				return s.malformed(st, "append to", coll, v)
			}
			coll.Value = arr.Append(v)
		case OpObjectInsert, OpObjectInsertOnce:
			coll, k, v := fr[st.Target], read(st.A, fr), read(st.B, fr)
			obj, ok := value[ast.Object](coll)
			if !ok || k == nil || v == nil {
				return s.malformed(st, "insert into", coll, v)
			}
			if st.Op == OpObjectInsertOnce {
				if cur := obj.Get(k); cur != nil && !cur.Equal(v) {
					return s.fail(st.Loc, topdown.ConflictErr, "object keys must be unique")
				}
			}
			obj.Insert(k, v)
		case OpObjectMerge:
			fr[st.Target] = merge(fr[st.A.Local], fr[st.B.Local])
		case OpSetAdd:
			coll, v := fr[st.Target], read(st.A, fr)
			set, ok := value[ast.Set](coll)
			if !ok || v == nil {
				return s.malformed(st, "add to", coll, v)
			}
			set.Add(v)
		case OpBlock:
			for _, sub := range st.Blocks {
				r := s.run(sub, fr)
				if r == completed || r == 0 {
					continue
				}
				if r < 0 {
					return r
				}
				return r - 1
			}
		case OpBreak:
			return st.Index
		case OpScan:
			if r := s.scan(st, fr); r != completed {
				return r
			}
		case OpNot:
			switch r := s.run(st.Blocks[0], fr); {
			case r == completed:
				return 0 // the negated body held: not holds not
			case r == 0:
				// the negated body was undefined: go on
			case r < 0:
				return r
			default:
				return r - 1
			}
		case OpReturn:
			s.retval = fr[st.Target]
			return returned
		case OpResultSetAdd:
			s.results = append(s.results, fr[st.Target])
		case OpNop:
		}
	}
	return completed
}

// scan runs the body once per element of a collection. The body runs
// inside a loop inside a block: a break of 0 from it goes on with the next
// element, a break of 1 leaves the scan, more leaves blocks around it.
func (s *state) scan(st *Stmt, fr []*ast.Term) int {
	src := fr[st.A.Local]
	if src == nil {
		return completed
	}
	// Scans nest as deep as the plan's blocks do; each depth keeps one
	// loop state and its callbacks, made once per evaluation rather than
	// a closure per scan.
	if s.scanDepth == len(s.scans) {
		l := &scanLoop{s: s}
		l.step = l.element
		l.member = func(x *ast.Term) bool { return l.element(x, x) }
		s.scans = append(s.scans, l)
	}
	l := s.scans[s.scanDepth]
	s.scanDepth++
	defer func() { s.scanDepth-- }()
	l.fr, l.body, l.key, l.val, l.code = fr, st.Blocks[0], st.Target, st.Local2, completed
	switch coll := src.Value.(type) {
	case *ast.Array:
		for i := range coll.Len() {
			if l.element(ast.InternedTerm(i), coll.Elem(i)) {
				break
			}
		}
	case ast.Object:
		coll.Until(l.step)
	case ast.Set:
		coll.Until(l.member)
	}
	l.fr = nil
	return l.code
}

// scanLoop is the state of one scan: the frame, the body, the locals the
// key and value go to, and how the scan ended.
type scanLoop struct {
	s        *state
	fr       []*ast.Term
	body     *Block
	key, val int
	code     int
	step     func(k, v *ast.Term) bool // element, bound once
	member   func(x *ast.Term) bool    // element of a set: its own key
}

// element runs the body for one element; true stops the scan.
func (l *scanLoop) element(k, v *ast.Term) (stop bool) {
	l.fr[l.key], l.fr[l.val] = k, v
	switch r := l.s.run(l.body, l.fr); {
	case r == completed || r == 0:
		return false
	case r == 1:
		return true
	case r < 0:
		l.code = r
	default:
		l.code = r - 2
	}
	return true
}

// call runs a planned function. A function of input and data alone (a rule
// without arguments) has one value per evaluation, so it runs once.
func (s *state) call(st *Stmt, fr []*ast.Term) (*ast.Term, int) {
	fn := st.Func
	if fn.Memo && s.known[fn.ID] {
		return s.memo[fn.ID], completed
	}
	caller := s.fn
	s.fn = fn
	defer func() { s.fn = caller }()
	callee := s.push(fn.NLocals)
	defer s.pop(len(callee))
	// An undefined argument is passed as undefined: the planner passes the
	// input local to every rule, and a rule that does not read input is
	// defined without one.
	for i, a := range st.Args {
		callee[fn.Params[i]] = read(a, fr)
	}
	var result *ast.Term
	for _, b := range fn.Blocks {
		r := s.run(b, callee)
		if r == aborted {
			return nil, aborted
		}
		if r == returned {
			result = s.retval
			break
		}
		if r > 0 {
			result = callee[fn.Ret]
			break
		}
	}
	if fn.Memo {
		s.memo[fn.ID], s.known[fn.ID] = result, true
	}
	return result, completed
}

// push gives a called function its locals, all undefined, from a stack
// that an evaluation reuses from call to call. Growing the stack leaves the
// frames of the callers in the old array, where they stay valid.
func (s *state) push(n int) []*ast.Term {
	base := len(s.stack)
	if cap(s.stack)-base < n {
		s.stack = slices.Grow(s.stack, max(n, cap(s.stack)))
	}
	s.stack = s.stack[:base+n]
	return s.stack[base : base+n : base+n]
}

// pop releases the last n locals, cleared so the stack beyond its length
// is always undefined and holds no values alive.
func (s *state) pop(n int) {
	top := len(s.stack) - n
	clear(s.stack[top:])
	s.stack = s.stack[:top]
}

func (s *state) callBuiltin(st *Stmt, fr []*ast.Term) (*ast.Term, int) {
	// The operands live on the locals' stack: a built-in reads them and
	// keeps none of the slice.
	args := s.push(len(st.Args))
	defer s.pop(len(args))
	for i, a := range st.Args {
		if args[i] = read(a, fr); args[i] == nil {
			return nil, completed
		}
	}
	s.out = nil
	s.bctx.Location = st.Loc
	bf := s.prog.builtins[st.Builtin]
	var err error
	if bf.relation {
		// Every output is a value the plan scans: the call gives them all.
		s.outs = nil
		if err = bf.impl(s.bctx, args, s.collectAll); err == nil {
			return ast.ArrayTerm(s.outs...), completed
		}
	} else if err = bf.impl(s.bctx, args, s.collect); err == nil {
		return s.out, completed
	}
	var halt topdown.Halt
	if errors.As(err, &halt) {
		s.err = halt.Err
		return nil, aborted
	}
	var te *topdown.Error
	if !errors.As(err, &te) {
		te = &topdown.Error{Code: topdown.BuiltinErr, Message: bf.name + ": " + err.Error(), Location: st.Loc}
	}
	s.builtinErrs = append(s.builtinErrs, te)
	return nil, completed
}

func (s *state) malformed(st *Stmt, what string, coll, v *ast.Term) int {
	return s.fail(st.Loc, topdown.InternalErr, "the policy plan tried to %s %s with %s", what, describe(coll), describe(v))
}

func describe(t *ast.Term) string {
	if t == nil {
		return "an undefined value"
	}
	return ast.ValueName(t.Value)
}

func value[T ast.Value](t *ast.Term) (T, bool) {
	var zero T
	if t == nil {
		return zero, false
	}
	v, ok := t.Value.(T)
	return v, ok
}

// conflict is OPA's message for two values of one rule or function, fn
// being where they met (nil outside any rule).
func conflict(fn *Function) string {
	if fn == nil {
		return "complete rules must not produce multiple outputs"
	}
	// A planned function is named g<N>.<the rule's path>.
	path := fn.Name
	if _, rest, ok := strings.Cut(path, "."); ok && strings.HasPrefix(path, "g") {
		path = rest
	}
	if fn.Memo {
		return "rule " + path + " produced conflicting values"
	}
	return "function " + path + " produced conflicting values for the same inputs"
}

// merge joins a base document (a) with the virtual document planned at the
// same path (b), as the plan's reference implementation does: objects
// merge key by key, and where the two disagree otherwise the base value
// stands; an undefined base gives the virtual document.
func merge(a, b *ast.Term) *ast.Term {
	if a == nil {
		return b
	}
	objA, okA := a.Value.(ast.Object)
	objB, okB := value[ast.Object](b)
	if !okA || !okB {
		return a
	}
	out := ast.NewObject()
	objA.Foreach(func(k, v *ast.Term) {
		if other := objB.Get(k); other != nil {
			v = merge(v, other)
		}
		out.Insert(k, v)
	})
	objB.Foreach(func(k, v *ast.Term) {
		if objA.Get(k) == nil {
			out.Insert(k, v)
		}
	})
	return ast.NewTerm(out)
}

func isArray(t *ast.Term) bool  { _, ok := t.Value.(*ast.Array); return ok }
func isObject(t *ast.Term) bool { _, ok := t.Value.(ast.Object); return ok }
func isSet(t *ast.Term) bool    { _, ok := t.Value.(ast.Set); return ok }

// dot looks key up in src: an object's value, an array's element, a set's
// member. Anything else, or a missing key, is undefined (nil).
func dot(src, key *ast.Term) *ast.Term {
	if src == nil || key == nil {
		return nil
	}
	switch v := src.Value.(type) {
	case ast.Object:
		return v.Get(key)
	case *ast.Array:
		return v.Get(key)
	case ast.Set:
		if v.Contains(key) {
			return key
		}
	}
	return nil
}

func length(t *ast.Term) (int, bool) {
	if t == nil {
		return 0, false
	}
	switch v := t.Value.(type) {
	case *ast.Array:
		return v.Len(), true
	case ast.Object:
		return v.Len(), true
	case ast.Set:
		return v.Len(), true
	case ast.String:
		return len([]rune(string(v))), true
	}
	return 0, false
}
