package sdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

// Evaluator is what an evaluator plugin implements. Calls of different
// sessions and batches may run concurrently; one Session is used by one
// goroutine at a time.
type Evaluator interface {
	// Describe says what the evaluator is and how to read its scores.
	Describe() *pluginpb.Description
	// EvaluateBatch writes the score of boards[i] into scores[i].
	EvaluateBatch(boards []Board, scores []float32) error
	// NewSession returns the state of one search session.
	NewSession() Session
}

// Session follows one search: a root position, then moves made (Push) and
// unmade (Pop), and evaluations of the current position.
type Session interface {
	NewGame(b *Board) error
	Push(d *Delta) error
	Pop() error
	Eval() (float32, error)
}

// Func is an Evaluator made of a function of the board. Its sessions keep a
// stack of boards and apply the deltas with Board.Apply.
type Func struct {
	// Description is what Describe returns.
	Description *pluginpb.Description
	// Eval scores one board.
	Eval func(b *Board) (float32, error)
}

// Describe implements Evaluator.
func (f *Func) Describe() *pluginpb.Description { return f.Description }

// EvaluateBatch implements Evaluator.
func (f *Func) EvaluateBatch(boards []Board, scores []float32) error {
	for i := range boards {
		s, err := f.Eval(&boards[i])
		if err != nil {
			return fmt.Errorf("position %d: %w", i, err)
		}
		scores[i] = s
	}
	return nil
}

// NewSession implements Evaluator.
func (f *Func) NewSession() Session { return &BoardStack{Score: f.Eval} }

// BoardStack is a Session that keeps the boards of the current line and
// scores the top one with Score.
type BoardStack struct {
	// Score scores one board.
	Score  func(b *Board) (float32, error)
	boards []Board
}

// NewGame implements Session.
func (s *BoardStack) NewGame(b *Board) error {
	s.boards = append(s.boards[:0], *b)
	return nil
}

// Push implements Session.
func (s *BoardStack) Push(d *Delta) error {
	if len(s.boards) == 0 {
		return errors.New("push before new game")
	}
	s.boards = append(s.boards, s.boards[len(s.boards)-1])
	if err := s.boards[len(s.boards)-1].Apply(d); err != nil {
		s.boards = s.boards[:len(s.boards)-1]
		return err
	}
	return nil
}

// Pop implements Session.
func (s *BoardStack) Pop() error {
	if len(s.boards) < 2 {
		return errors.New("pop at the root")
	}
	s.boards = s.boards[:len(s.boards)-1]
	return nil
}

// Top returns the current board, nil before NewGame.
func (s *BoardStack) Top() *Board {
	if len(s.boards) == 0 {
		return nil
	}
	return &s.boards[len(s.boards)-1]
}

// Eval implements Session.
func (s *BoardStack) Eval() (float32, error) {
	if len(s.boards) == 0 {
		return 0, errors.New("eval before new game")
	}
	return s.Score(s.Top())
}

// MetricInput is what a metric is computed from. Scores are the network's
// evaluations (centipawns, side to move); the targets are optional.
type MetricInput struct {
	Net, Arch     string
	Boards        []Board
	Scores        []float32
	TargetScores  []float32
	TargetResults []float32
	Params        map[string]string
}

// Metric is what a metric plugin implements: a network's scores on a
// position set in, named numbers out.
type Metric interface {
	DescribeMetric() *pluginpb.MetricDescription
	Compute(in *MetricInput) (map[string]float64, error)
}

// Plugins are the services one plugin binary serves; either may be nil.
type Plugins struct {
	Evaluator Evaluator
	Metric    Metric
}

// Serve serves p as a go-plugin plugin and returns when the host ends it.
// The plugin also exits when its host dies without ending it (the parent
// process changes).
func Serve(p Plugins) {
	set := plugin.PluginSet{}
	if p.Evaluator != nil {
		srv := &evaluatorServer{impl: p.Evaluator}
		set[EvaluatorPlugin] = &grpcPlugin{register: func(s *grpc.Server) { pluginpb.RegisterEvaluatorServer(s, srv) }}
	}
	if p.Metric != nil {
		srv := &metricServer{impl: p.Metric}
		set[MetricPlugin] = &grpcPlugin{register: func(s *grpc.Server) { pluginpb.RegisterMetricServer(s, srv) }}
	}
	go watchParent(os.Getppid())
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         set,
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage))...)
		},
	})
}

// watchParent exits when the process that started the plugin is gone.
func watchParent(ppid int) {
	for range time.Tick(500 * time.Millisecond) {
		if os.Getppid() != ppid {
			os.Exit(0)
		}
	}
}

// Boards decodes a batch given as FENs or packed records (not both).
func Boards(fens []string, packed []byte, dst []Board) ([]Board, error) {
	if len(fens) > 0 && len(packed) > 0 {
		return nil, errors.New("both FENs and packed positions given")
	}
	if len(packed)%PackedSize != 0 {
		return nil, fmt.Errorf("packed positions: %d bytes is not a multiple of %d", len(packed), PackedSize)
	}
	n := len(fens) + len(packed)/PackedSize
	if cap(dst) < n {
		dst = make([]Board, n)
	}
	dst = dst[:n]
	var err error
	for i, f := range fens {
		if dst[i], err = ParseFEN(f); err != nil {
			return nil, fmt.Errorf("position %d: %w", i, err)
		}
	}
	for i := 0; i < len(packed)/PackedSize; i++ {
		if dst[i], err = Unpack(packed[i*PackedSize:]); err != nil {
			return nil, fmt.Errorf("position %d: %w", i, err)
		}
	}
	return dst, nil
}

// PositionBoard decodes one protocol position.
func PositionBoard(p *pluginpb.Position) (Board, error) {
	switch {
	case p == nil:
		return Board{}, errors.New("no position")
	case len(p.Packed) > 0:
		if len(p.Packed) != PackedSize {
			return Board{}, fmt.Errorf("packed position: %d bytes, want %d", len(p.Packed), PackedSize)
		}
		return Unpack(p.Packed)
	default:
		return ParseFEN(p.Fen)
	}
}

type evaluatorServer struct {
	pluginpb.UnimplementedEvaluatorServer
	impl Evaluator
}

func (s *evaluatorServer) Describe(context.Context, *pluginpb.DescribeRequest) (*pluginpb.Description, error) {
	return s.impl.Describe(), nil
}

// boardPool recycles batch decoding buffers.
var boardPool = sync.Pool{New: func() any { return new([]Board) }}

func (s *evaluatorServer) EvaluateBatch(_ context.Context, req *pluginpb.BatchRequest) (*pluginpb.BatchResponse, error) {
	buf := boardPool.Get().(*[]Board)
	defer boardPool.Put(buf)
	boards, err := Boards(req.Fens, req.Packed, *buf)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	*buf = boards
	scores := make([]float32, len(boards))
	if err := s.impl.EvaluateBatch(boards, scores); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &pluginpb.BatchResponse{Scores: scores}, nil
}

func (s *evaluatorServer) Session(stream pluginpb.Evaluator_SessionServer) error {
	sess := s.impl.NewSession()
	resp := &pluginpb.SessionResponse{}
	for n := 0; ; n++ {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := applyOps(sess, req.Ops); err != nil {
			return status.Errorf(codes.InvalidArgument, "request %d: %v", n, err)
		}
		resp.Score = 0
		if req.Eval {
			if resp.Score, err = sess.Eval(); err != nil {
				return status.Errorf(codes.InvalidArgument, "request %d: eval: %v", n, err)
			}
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

func applyOps(sess Session, ops []*pluginpb.Op) error {
	for i, op := range ops {
		var err error
		switch o := op.GetOp().(type) {
		case *pluginpb.Op_NewGame:
			var b Board
			if b, err = PositionBoard(o.NewGame.GetPosition()); err == nil {
				err = sess.NewGame(&b)
			}
		case *pluginpb.Op_Push:
			var d Delta
			if d, err = DeltaFromProto(o.Push); err == nil {
				err = sess.Push(&d)
			}
		case *pluginpb.Op_Pop:
			err = sess.Pop()
		default:
			err = errors.New("empty op")
		}
		if err != nil {
			return fmt.Errorf("op %d: %w", i, err)
		}
	}
	return nil
}

type metricServer struct {
	pluginpb.UnimplementedMetricServer
	impl Metric
}

func (s *metricServer) DescribeMetric(context.Context, *pluginpb.DescribeRequest) (*pluginpb.MetricDescription, error) {
	return s.impl.DescribeMetric(), nil
}

func (s *metricServer) Compute(_ context.Context, req *pluginpb.MetricRequest) (*pluginpb.MetricResponse, error) {
	boards, err := Boards(req.Fens, req.Packed, nil)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	n := len(boards)
	for _, c := range []struct {
		name string
		len  int
		need bool
	}{{"scores", len(req.Scores), true}, {"target_scores", len(req.TargetScores), false}, {"target_results", len(req.TargetResults), false}} {
		if c.len != n && (c.need || c.len != 0) {
			return nil, status.Errorf(codes.InvalidArgument, "%d positions but %d %s", n, c.len, c.name)
		}
	}
	vals, err := s.impl.Compute(&MetricInput{
		Net: req.Net, Arch: req.Arch, Boards: boards, Scores: req.Scores,
		TargetScores: req.TargetScores, TargetResults: req.TargetResults, Params: req.Params,
	})
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &pluginpb.MetricResponse{Values: vals}, nil
}
