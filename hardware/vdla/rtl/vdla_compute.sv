// The compute module: runs LOADs of micro-ops and accumulators, GEMM, ALU and FINISH in order,
// each once its tokens are there (pop_prev: load->compute, pop_next: store->compute) and there is
// room for those it gives when done (push_prev: compute->load, push_next: compute->store).
//
// GEMM and ALU step one micro-op a cycle through three stages: A reads the micro-op, B computes
// the entry indices and reads the buffers, C computes and writes the accumulator and output
// entries. A read in B does not see the write C makes in the same cycle, so C takes the value of
// the entry written the cycle before from a bypass when the indices match.
module vdla_compute #(
    parameter int BATCH = 1,
    parameter int BLOCK_IN = 16,
    parameter int BLOCK_OUT = 16,
    parameter int INP_DEPTH = 2048,
    parameter int WGT_DEPTH = 1024,
    parameter int ACC_DEPTH = 2048,
    parameter int UOP_DEPTH = 8192
) (
    input logic clk,
    input logic rst,
    input logic [31:0] dram_bytes,  // DRAM's size: a LOAD may read bytes [0, dram_bytes)
    input logic [159:0] q_head,
    input logic q_empty,
    output logic q_pop,
    input logic have_pop_prev,
    input logic have_pop_next,
    input logic room_push_prev,
    input logic room_push_next,
    output logic tok_pop_prev,
    output logic tok_pop_next,
    output logic tok_push_prev,
    output logic tok_push_next,
    output logic retire,
    output logic [31:0] retire_index,
    output logic finish,
    output logic req_valid,
    output logic [31:0] req_addr,
    input logic req_grant,
    input logic resp_valid,
    input logic [127:0] resp_data,
    output logic [15:0] inp_rd_entry,
    input logic [BATCH*BLOCK_IN*8-1:0] inp_rd_data,
    output logic [15:0] wgt_rd_entry,
    input logic [BLOCK_OUT*BLOCK_IN*8-1:0] wgt_rd_data,
    output logic out_wr_en,
    output logic [15:0] out_wr_entry,
    output logic [BATCH*BLOCK_OUT*8-1:0] out_wr_data,
    output logic busy,
    output logic gemm_step,  // a multiply-accumulating GEMM micro-op in its last stage this cycle
    // An index past its buffer (a LOAD's tile, or a micro-op's index in a GEMM or ALU loop, in the
    // functional simulator's order of checks), or a LOAD reading past DRAM's end (BUF_DRAM, the
    // last DRAM entry it would read; its buffer is checked first): the module halts there.
    output logic err,
    output logic [2:0] err_buffer,
    output logic [31:0] err_index,
    output logic [31:0] err_insn
);
  import vdla_pkg::*;
  localparam int ACC_BITS = BATCH * BLOCK_OUT * 32;
  localparam int ACC_BEATS = ACC_BITS / 128;
  localparam int ACC_SHIFT = $clog2(ACC_BITS / 8);
  localparam int N = BATCH * BLOCK_OUT;

  typedef enum logic [2:0] {
    IDLE,
    DMA,
    LOOP,
    DRAIN,
    DONE,
    HALT
  } state_t;
  state_t state;
  insn_t insn, head;
  logic [31:0] index;
  assign head = q_head[127:0];

  logic [31:0] uop_mem[UOP_DEPTH];
  logic [ACC_BITS-1:0] acc_mem[ACC_DEPTH];

  // --- Dispatch.
  wire ready = !q_empty && (!pop_prev(head) || have_pop_prev) &&
               (!pop_next(head) || have_pop_next) && (!push_prev(head) || room_push_prev) &&
               (!push_next(head) || room_push_next);
  wire head_depth_is_uop = mem_type(head) == 3'(MEM_UOP);
  wire [3:0] head_shift = head_depth_is_uop ? 4'd2 : 4'(ACC_SHIFT);
  wire load_buffer_overrun =
      !q_empty && opcode(head) == 3'(OP_LOAD) &&
      overruns(head, load_entries(head), head_depth_is_uop ? UOP_DEPTH : ACC_DEPTH);
  wire load_overrun = load_buffer_overrun || (!q_empty && opcode(head) == 3'(OP_LOAD) &&
                                              dram_overruns(head, head_shift, dram_bytes));
  wire start = state == IDLE && ready && !load_overrun;
  assign q_pop = start;
  assign tok_pop_prev = start && pop_prev(head);
  assign tok_pop_next = start && pop_next(head);
  assign busy = state != IDLE;
  assign retire = state == DONE;
  assign retire_index = index;
  assign tok_push_prev = retire && push_prev(insn);
  assign tok_push_next = retire && push_next(insn);
  assign finish = retire && opcode(insn) == 3'(OP_FINISH);

  // --- LOADs of micro-ops and accumulators.
  logic dma_busy, dma_done, dma_wr;
  logic [15:0] dma_entry;
  logic [7:0] dma_beat;
  logic [127:0] dma_data;
  wire head_is_uop = mem_type(head) == 3'(MEM_UOP);
  wire head_is_load = opcode(head) == 3'(OP_LOAD);
  vdla_dma dma (
      .clk(clk),
      .rst(rst),
      .start(start && head_is_load),
      .insn(head),
      .entry_shift(head_shift),
      .beats(head_is_uop ? 9'd1 : 9'(ACC_BEATS)),
      .busy(dma_busy),
      .done(dma_done),
      .req_valid(req_valid),
      .req_addr(req_addr),
      .req_grant(req_grant),
      .resp_valid(resp_valid),
      .resp_data(resp_data),
      .wr_en(dma_wr),
      .wr_entry(dma_entry),
      .wr_beat(dma_beat),
      .wr_data(dma_data)
  );
  wire loading_uops = mem_type(insn) == 3'(MEM_UOP);

  // --- GEMM and ALU: the loop counters (stage A).
  wire is_gemm = opcode(insn) == 3'(OP_GEMM);
  logic [12:0] i, j;
  logic [14:0] u;
  wire [14:0] u_begin = is_gemm ? 15'(gemm_uop_begin(insn)) : 15'(alu_uop_begin(insn));
  wire [14:0] u_end = is_gemm ? gemm_uop_end(insn) : alu_uop_end(insn);
  wire [12:0] n_out = is_gemm ? gemm_iter_out(insn) : alu_iter_out(insn);
  wire [12:0] n_in = is_gemm ? gemm_iter_in(insn) : alu_iter_in(insn);
  wire [10:0] dst_out = is_gemm ? gemm_dst_out(insn) : alu_dst_out(insn);
  wire [10:0] dst_in = is_gemm ? gemm_dst_in(insn) : alu_dst_in(insn);
  wire [10:0] src_out = is_gemm ? gemm_src_out(insn) : alu_src_out(insn);
  wire [10:0] src_in = is_gemm ? gemm_src_in(insn) : alu_src_in(insn);

  // Stage B's registers, stage C's registers, and the bypass of the last write.
  logic b_valid, c_valid, last_valid;
  logic [12:0] b_i, b_j;
  logic [31:0] b_uop;
  logic [15:0] c_dst, c_src, last_idx;
  logic [ACC_BITS-1:0] c_acc_dst, c_acc_src, last_val;

  // Stage B: indices, in full for the range checks.
  wire [31:0] b_dst = 32'(uop_acc(b_uop)) + 32'(b_i) * 32'(dst_out) + 32'(b_j) * 32'(dst_in);
  wire [31:0] b_src = 32'(uop_inp(b_uop)) + 32'(b_i) * 32'(src_out) + 32'(b_j) * 32'(src_in);
  wire [31:0] b_wgt = 32'(uop_wgt(b_uop)) + 32'(b_i) * 32'(gemm_wgt_out(insn)) +
                      32'(b_j) * 32'(gemm_wgt_in(insn));
  assign inp_rd_entry = 16'(b_src);
  assign wgt_rd_entry = 16'(b_wgt);

  // Range errors: stage B's micro-op before stage A's (fsim checks one micro-op's indices before
  // the next micro-op's), accumulator before input before weight (ALU: destination before source).
  logic bad;
  logic [2:0] bad_buffer;
  logic [31:0] bad_index;
  always_comb begin
    bad = 1'b1;
    bad_buffer = 3'(BUF_ACC);
    bad_index = '0;
    if (b_valid && b_dst >= 32'(ACC_DEPTH)) begin
      bad_index = b_dst;
    end else if (b_valid && is_gemm && !gemm_reset(insn) && b_src >= 32'(INP_DEPTH)) begin
      bad_buffer = 3'(BUF_INP);
      bad_index = b_src;
    end else if (b_valid && is_gemm && !gemm_reset(insn) && b_wgt >= 32'(WGT_DEPTH)) begin
      bad_buffer = 3'(BUF_WGT);
      bad_index = b_wgt;
    end else if (b_valid && !is_gemm && !alu_use_imm(insn) && b_src >= 32'(ACC_DEPTH)) begin
      bad_index = b_src;
    end else if (state == LOOP && 32'(u) >= 32'(UOP_DEPTH) && !b_valid && !c_valid) begin
      // Stage A stalls at the index; the steps before it complete first, as in fsim.
      bad_buffer = 3'(BUF_UOP);
      bad_index = 32'(u);
    end else if (state == IDLE && load_buffer_overrun) begin
      bad_buffer = head_depth_is_uop ? 3'(BUF_UOP) : 3'(BUF_ACC);
      bad_index = first_past(head, head_depth_is_uop ? UOP_DEPTH : ACC_DEPTH);
    end else if (state == IDLE && load_overrun) begin
      bad_buffer = 3'(BUF_DRAM);
      bad_index = 32'(dram_last(head));
    end else begin
      bad = 1'b0;
    end
  end
  assign err = state == HALT;

  // Stage C: the result.
  logic [ACC_BITS-1:0] dst_val, src_val, result;
  logic [31:0] imm32;
  wire [15:0] imm16 = alu_imm(insn);
  always_comb begin
    dst_val = (last_valid && last_idx == c_dst) ? last_val : c_acc_dst;
    src_val = (last_valid && last_idx == c_src) ? last_val : c_acc_src;
    imm32 = {{16{imm16[15]}}, imm16};
    result = '0;
    for (int e = 0; e < N; e++) begin
      logic signed [31:0] a, b, r;
      a = dst_val[e*32+:32];
      if (is_gemm) begin
        r = a;
        for (int k = 0; k < BLOCK_IN; k++) begin
          r = r + $signed(inp_rd_data[((e / BLOCK_OUT) * BLOCK_IN + k) * 8+:8]) *
                  $signed(wgt_rd_data[((e % BLOCK_OUT) * BLOCK_IN + k) * 8+:8]);
        end
        if (gemm_reset(insn)) r = '0;
      end else begin
        b = alu_use_imm(insn) ? imm32 : src_val[e*32+:32];
        case (alu_op(insn))
          3'(ALU_MIN): r = a < b ? a : b;
          3'(ALU_MAX): r = a > b ? a : b;
          3'(ALU_ADD): r = a + b;
          3'(ALU_MUL): r = a * b;
          default:  // ALU_SHR: right by b, left by -b
          if (b >= 0) r = a >>> (b > 31 ? 31 : b);
          else r = a << (b < -31 ? 31 : -b);
        endcase
      end
      result[e*32+:32] = r;
    end
  end
  always_comb begin
    for (int e = 0; e < N; e++) out_wr_data[e*8+:8] = result[e*32+:8];
  end
  assign out_wr_en = c_valid;
  assign out_wr_entry = c_dst;
  assign gemm_step = c_valid && is_gemm && !gemm_reset(insn);

  always_ff @(posedge clk) begin
    if (rst) begin
      state <= IDLE;
      b_valid <= 1'b0;
      c_valid <= 1'b0;
      last_valid <= 1'b0;
    end else begin
      // Stage A -> B (not past the micro-op buffer: that index is an error once B and C drain).
      b_valid <= 1'b0;
      if (state == LOOP && 32'(u) < 32'(UOP_DEPTH)) begin
        b_uop <= uop_mem[u];
        b_i <= i;
        b_j <= j;
        b_valid <= 1'b1;
        if (u + 1 < u_end) begin
          u <= u + 1'b1;
        end else begin
          u <= u_begin;
          if (j + 1 < n_in) begin
            j <= j + 1'b1;
          end else begin
            j <= '0;
            if (i + 1 < n_out) i <= i + 1'b1;
            else state <= DRAIN;
          end
        end
      end
      // Stage B -> C.
      c_valid <= b_valid;
      if (b_valid) begin
        c_dst <= 16'(b_dst);
        c_src <= 16'(b_src);
        c_acc_dst <= acc_mem[b_dst[15:0]];
        c_acc_src <= acc_mem[b_src[15:0]];
      end
      // Stage C: write.
      last_valid <= c_valid;
      if (c_valid) begin
        acc_mem[c_dst] <= result;
        last_idx <= c_dst;
        last_val <= result;
      end
      // Loads into the compute module's buffers.
      if (dma_wr) begin
        if (loading_uops) uop_mem[dma_entry] <= dma_data[31:0];
        else acc_mem[dma_entry][dma_beat*128+:128] <= dma_data;
      end

      case (state)
        IDLE:
        if (start) begin
          insn <= head;
          index <= q_head[159:128];
          last_valid <= 1'b0;
          if (head_is_load) begin
            state <= DMA;
          end else if (opcode(head) == 3'(OP_GEMM) || opcode(head) == 3'(OP_ALU)) begin
            i <= '0;
            j <= '0;
            u <= opcode(head) == 3'(OP_GEMM) ? 15'(gemm_uop_begin(head)) :
                                              15'(alu_uop_begin(head));
            state <= LOOP;
            // Nothing to step through: straight to done.
            if (opcode(head) == 3'(OP_GEMM) ?
                    (gemm_iter_out(head) == 0 || gemm_iter_in(head) == 0 ||
                     15'(gemm_uop_begin(head)) >= gemm_uop_end(head)) :
                    (alu_iter_out(head) == 0 || alu_iter_in(head) == 0 ||
                     15'(alu_uop_begin(head)) >= alu_uop_end(head)))
              state <= DONE;
          end else begin
            state <= DONE;  // FINISH
          end
        end
        DMA: if (dma_done) state <= DONE;
        DRAIN: if (!b_valid && !c_valid) state <= DONE;
        DONE: state <= IDLE;
        default: ;
      endcase
      if (bad && state != HALT) begin
        state <= HALT;
        err_buffer <= bad_buffer;
        err_index <= bad_index;
        err_insn <= state == IDLE ? q_head[159:128] : index;
        b_valid <= 1'b0;
        c_valid <= 1'b0;
      end
    end
  end
endmodule
