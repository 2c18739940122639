// The load module: runs LOADs of inputs and weights in order, each once the compute module has
// freed the buffer it writes (pop_next: a compute->load token) and there is room for the token it
// pushes when done (push_next: load->compute).
module vdla_load #(
    parameter int INP_SHIFT = 4,  // log2 bytes of an input entry
    parameter int WGT_SHIFT = 8,
    parameter int INP_BEATS = 1,
    parameter int WGT_BEATS = 16,
    parameter int INP_DEPTH = 2048,
    parameter int WGT_DEPTH = 1024
) (
    input logic clk,
    input logic rst,
    input logic [31:0] dram_bytes,  // DRAM's size: a LOAD may read bytes [0, dram_bytes)
    input logic [159:0] q_head,
    input logic q_empty,
    output logic q_pop,
    input logic have_pop_next,
    input logic room_push_next,
    output logic tok_pop,  // a compute->load token taken
    output logic tok_push,  // a load->compute token given
    output logic retire,
    output logic [31:0] retire_index,
    output logic req_valid,
    output logic [31:0] req_addr,
    input logic req_grant,
    input logic resp_valid,
    input logic [127:0] resp_data,
    output logic inp_wr_en,
    output logic wgt_wr_en,
    output logic [15:0] wr_entry,
    output logic [7:0] wr_beat,
    output logic [127:0] wr_data,
    output logic busy,
    // The LOAD at the queue's head would write past its buffer (err_index: the first index past
    // it) or read past DRAM's end (err_buffer BUF_DRAM, err_index: the last DRAM entry it would
    // read), the buffer checked first: it does not start.
    output logic err,
    output logic [2:0] err_buffer,
    output logic [31:0] err_index,
    output logic [31:0] err_insn
);
  import vdla_pkg::*;
  insn_t insn, head;
  logic [31:0] index;
  logic running, dma_busy, dma_done, dma_wr;
  assign head = q_head[127:0];

  wire head_is_wgt = mem_type(head) == 3'(MEM_WGT);
  wire ready = !q_empty && (!pop_next(head) || have_pop_next) &&
               (!push_next(head) || room_push_next);
  wire [3:0] head_shift = head_is_wgt ? 4'(WGT_SHIFT) : 4'(INP_SHIFT);
  wire buffer_overrun = !q_empty &&
                        overruns(head, load_entries(head), head_is_wgt ? WGT_DEPTH : INP_DEPTH);
  wire dram_overrun = !q_empty && dram_overruns(head, head_shift, dram_bytes);
  wire overrun = buffer_overrun || dram_overrun;
  assign err = !running && overrun;
  assign err_buffer = !buffer_overrun ? 3'(BUF_DRAM) : head_is_wgt ? 3'(BUF_WGT) : 3'(BUF_INP);
  assign err_index = !buffer_overrun ? 32'(dram_last(head)) :
                                       first_past(head, head_is_wgt ? WGT_DEPTH : INP_DEPTH);
  assign err_insn = q_head[159:128];
  wire start = !running && ready && !overrun;
  assign q_pop = start;
  assign tok_pop = start && pop_next(head);
  assign busy = running;

  vdla_dma dma (
      .clk(clk),
      .rst(rst),
      .start(start),
      .insn(head),
      .entry_shift(head_shift),
      .beats(head_is_wgt ? 9'(WGT_BEATS) : 9'(INP_BEATS)),
      .busy(dma_busy),
      .done(dma_done),
      .req_valid(req_valid),
      .req_addr(req_addr),
      .req_grant(req_grant),
      .resp_valid(resp_valid),
      .resp_data(resp_data),
      .wr_en(dma_wr),
      .wr_entry(wr_entry),
      .wr_beat(wr_beat),
      .wr_data(wr_data)
  );

  wire is_wgt = mem_type(insn) == 3'(MEM_WGT);
  assign inp_wr_en = dma_wr && !is_wgt;
  assign wgt_wr_en = dma_wr && is_wgt;
  assign retire = running && dma_done;
  assign retire_index = index;
  assign tok_push = retire && push_next(insn);

  always_ff @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
    end else if (start) begin
      running <= 1'b1;
      insn <= head;
      index <= q_head[159:128];
    end else if (retire) begin
      running <= 1'b0;
    end
  end
endmodule
