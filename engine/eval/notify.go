package eval

// Notifier is implemented by evaluators that may have news for the user
// while they run, such as a plugin evaluator whose process died and which
// goes on with its fallback. The UCI layer passes a function that prints
// each message as an "info string"; the evaluator calls it from the
// goroutine that uses it.
type Notifier interface {
	SetNotify(func(msg string))
}

// Faulter is implemented by evaluators that stand in for a failing backend
// with a fallback evaluation, such as a plugin evaluator whose process died
// (which goes on with the classical evaluation so that a game in progress
// is not lost). Fault returns the failure that made the evaluator answer
// from its fallback since the last Reset, or nil if every evaluation since
// then was its own. Callers whose numbers must not mix two evaluations
// (`nnuelab eval`, bench) check it and fail instead.
type Faulter interface {
	Fault() error
}

// Fault returns ev's fault (see Faulter); nil for evaluators that have no
// fallback.
func Fault(ev Evaluator) error {
	if f, ok := ev.(Faulter); ok {
		return f.Fault()
	}
	return nil
}
