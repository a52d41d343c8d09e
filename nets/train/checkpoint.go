package train

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/nets"
)

// EpochStats is one line of the loss history.
type EpochStats struct {
	Epoch     int     `json:"epoch"`     // 1-based
	Step      int     `json:"step"`      // optimizer steps so far
	Positions int64   `json:"positions"` // training positions seen so far
	LR        float64 `json:"lr"`        // rate of the epoch's last step
	TrainLoss float64 `json:"train_loss"`
	ValLoss   float64 `json:"val_loss"`
	// QValLoss is the validation loss of the quantized net as engine/nnue
	// loads it (nnue.FromFloat), QuantErrCP the mean |quantized - float|
	// output on the validation positions, in centipawns.
	QValLoss   float64 `json:"qval_loss"`
	QuantErrCP float64 `json:"quant_err_cp"`
	Seconds    float64 `json:"seconds"` // wall time of the epoch's steps
	// CPUSeconds is the process's CPU time over those steps (all
	// threads): PosPerSec*Seconds/CPUSeconds is the rate per core-second,
	// which other jobs on a shared machine do not lower.
	CPUSeconds float64 `json:"cpu_seconds"`
	PosPerSec  float64 `json:"pos_per_sec"`
	GFLOPs     float64 `json:"gflops"` // achieved float operations per second / 1e9
}

// historyHeader is the CSV header of the loss history.
var historyHeader = []string{"epoch", "step", "positions", "lr", "train_loss", "val_loss", "qval_loss", "quant_err_cp", "seconds", "cpu_seconds", "pos_per_sec", "gflops"}

// WriteHistory writes the loss history as CSV to path atomically.
func WriteHistory(path string, h []EpochStats) error {
	return fsutil.WriteFileAtomic(path, historyCSV(h), 0o644)
}

// historyCSV encodes the history as CSV (a missing validation loss is NaN).
func historyCSV(h []EpochStats) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(historyHeader)
	for _, e := range h {
		w.Write([]string{strconv.Itoa(e.Epoch), strconv.Itoa(e.Step), strconv.FormatInt(e.Positions, 10),
			fmtF(e.LR), fmtF(e.TrainLoss), fmtF(e.ValLoss), fmtF(e.QValLoss), fmtF(e.QuantErrCP),
			fmtF(e.Seconds), fmtF(e.CPUSeconds), fmtF(e.PosPerSec), fmtF(e.GFLOPs)})
	}
	w.Flush()
	return buf.Bytes()
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ReadHistory reads a loss history CSV written by WriteHistory.
func ReadHistory(path string) ([]EpochStats, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseHistory(path, data)
}

func parseHistory(path string, data []byte) ([]EpochStats, error) {
	if !bytes.HasPrefix(data, []byte(strings.Join(historyHeader, ",")+"\n")) {
		return nil, fmt.Errorf("%s: not a loss history (expected the header %s)", path, strings.Join(historyHeader, ","))
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != strings.Join(historyHeader, ",") {
		return nil, fmt.Errorf("%s: not a loss history (expected the header %s)", path, strings.Join(historyHeader, ","))
	}
	var out []EpochStats
	for i, r := range rows[1:] {
		if len(r) != len(historyHeader) {
			return nil, fmt.Errorf("%s line %d: %d fields, want %d", path, i+2, len(r), len(historyHeader))
		}
		var e EpochStats
		var errs []error
		atoi := func(s string) int { v, err := strconv.Atoi(s); errs = append(errs, err); return v }
		atof := func(s string) float64 { v, err := strconv.ParseFloat(s, 64); errs = append(errs, err); return v }
		e.Epoch, e.Step = atoi(r[0]), atoi(r[1])
		e.Positions = int64(atoi(r[2]))
		e.LR, e.TrainLoss, e.ValLoss, e.QValLoss, e.QuantErrCP = atof(r[3]), atof(r[4]), atof(r[5]), atof(r[6]), atof(r[7])
		e.Seconds, e.CPUSeconds, e.PosPerSec, e.GFLOPs = atof(r[8]), atof(r[9]), atof(r[10]), atof(r[11])
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("%s line %d: %w", path, i+2, err)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// state is what a checkpoint restores besides the weights.
type state struct {
	Epoch     int          // epochs completed
	Step      int          // optimizer steps done
	Positions int64        // training positions seen
	History   []EpochStats // one entry per completed epoch
	// Part is the epoch in progress, for a checkpoint written within it.
	Part epochPart
}

// epochPart sums the steps done so far of the epoch in progress, so that a
// run resumed within an epoch reports the epoch as an uninterrupted run
// does (the loss exactly; the times as the sum of the pieces).
type epochPart struct {
	LossSum    float64 `json:"loss_sum"`
	LossN      int64   `json:"loss_n"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	Flops      float64 `json:"flops"`
}

// checkpointKind marks a checkpoint's header.
const checkpointKind = "checkpoint"

// saveCheckpoint writes the model, its optimizer moments, the config and
// the state to path atomically (nnuelab's float net format, so the payload
// is checksummed and compressed).
func saveCheckpoint(path string, m *Model, cfg *Config, dataSHA string, st *state) error {
	cj, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	var ts []nnue.Tensor
	for _, p := range m.all {
		ts = append(ts, nnue.Tensor{Name: p.Name, Shape: p.Shape, Data: p.Data},
			nnue.Tensor{Name: "adam.m/" + p.Name, Shape: p.Shape, Data: p.M},
			nnue.Tensor{Name: "adam.v/" + p.Name, Shape: p.Shape, Data: p.V})
	}
	h := nets.Header{Arch: m.Spec.Name, ArchSHA256: m.Spec.NetSHA256(), DatasetSHA256: dataSHA,
		Created: time.Now().UTC().Format(time.RFC3339),
		Training: map[string]string{
			"kind": checkpointKind, "config": string(cj), "history": string(historyCSV(st.History)),
			"epoch": strconv.Itoa(st.Epoch), "step": strconv.Itoa(st.Step), "positions": strconv.FormatInt(st.Positions, 10),
		}}
	if st.Part != (epochPart{}) {
		pj, err := json.Marshal(st.Part)
		if err != nil {
			return err
		}
		h.Training["epoch_part"] = string(pj)
	}
	return nets.WriteFloatLevel(path, h, ts, zstd.SpeedFastest)
}

// loadCheckpoint reads a checkpoint for spec into m and returns its config
// and state. A corrupt or foreign file is an error that says so.
func loadCheckpoint(path string, m *Model) (*Config, *state, *nets.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	h, ts, err := nets.ReadFloat(f)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("checkpoint %s: "+format, append([]any{path}, a...)...)
	}
	if h.Training["kind"] != checkpointKind {
		return nil, nil, nil, bad("not a training checkpoint (a trained net? resume needs the .ckpt file)")
	}
	if h.Arch != m.Spec.Name {
		return nil, nil, nil, bad("is for architecture %q, not %q", h.Arch, m.Spec.Name)
	}
	if got := m.Spec.NetSHA256(); h.ArchSHA256 != got {
		return nil, nil, nil, bad("architecture %s changed since the checkpoint (arch SHA-256 %s, now %s): overrides or the TOML differ", h.Arch, h.ArchSHA256, got)
	}
	var cfg Config
	if err := json.Unmarshal([]byte(h.Training["config"]), &cfg); err != nil {
		return nil, nil, nil, bad("bad config: %v", err)
	}
	st := &state{}
	if st.History, err = parseHistory("history", []byte(h.Training["history"])); err != nil {
		return nil, nil, nil, bad("bad history: %v", err)
	}
	if st.Epoch, err = strconv.Atoi(h.Training["epoch"]); err != nil {
		return nil, nil, nil, bad("bad epoch: %v", err)
	}
	if st.Step, err = strconv.Atoi(h.Training["step"]); err != nil {
		return nil, nil, nil, bad("bad step: %v", err)
	}
	if st.Positions, err = strconv.ParseInt(h.Training["positions"], 10, 64); err != nil {
		return nil, nil, nil, bad("bad positions: %v", err)
	}
	if pj := h.Training["epoch_part"]; pj != "" {
		if err := json.Unmarshal([]byte(pj), &st.Part); err != nil {
			return nil, nil, nil, bad("bad epoch_part: %v", err)
		}
	}
	if len(st.History) != st.Epoch {
		return nil, nil, nil, bad("history has %d epochs, header says %d", len(st.History), st.Epoch)
	}
	by := map[string][]nnue.Tensor{}
	var weights []nnue.Tensor
	for _, t := range ts {
		switch {
		case strings.HasPrefix(t.Name, "adam.m/"), strings.HasPrefix(t.Name, "adam.v/"):
			by[t.Name] = []nnue.Tensor{t}
		default:
			weights = append(weights, t)
		}
	}
	if err := m.SetTensors(weights); err != nil {
		return nil, nil, nil, bad("%v", err)
	}
	for _, p := range m.all {
		for _, mv := range []struct {
			pre string
			dst []float32
		}{{"adam.m/", p.M}, {"adam.v/", p.V}} {
			t, ok := by[mv.pre+p.Name]
			if !ok || len(t[0].Data) != len(mv.dst) {
				return nil, nil, nil, bad("optimizer state %s%s missing or of the wrong size", mv.pre, p.Name)
			}
			copy(mv.dst, t[0].Data)
		}
	}
	return &cfg, st, h, nil
}

// CheckpointConfig returns the config a checkpoint was made with, so that
// a resume needs no flags but the output path.
func CheckpointConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	h, _, err := nets.ReadFloat(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if h.Training["kind"] != checkpointKind {
		return nil, fmt.Errorf("checkpoint %s: not a training checkpoint", path)
	}
	var cfg Config
	if err := json.Unmarshal([]byte(h.Training["config"]), &cfg); err != nil {
		return nil, fmt.Errorf("checkpoint %s: bad config: %w", path, err)
	}
	return &cfg, nil
}
