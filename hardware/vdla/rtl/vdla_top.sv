// VDLA: fetch, the load, compute and store modules with their command queues, the four
// dependency-token queues, the input, weight and output buffers, and the DRAM port (served by
// whoever simulates the design: a read request is answered, in order, some cycles later; a write
// is done when granted). The register interface: `launch` (one cycle, with the program's DRAM byte
// address and instruction count, and `dram_bytes`, DRAM's size, which LOADs and STOREs must stay
// within until the next launch) starts a run; `done` rises when FINISH retires and stays until
// the next launch; `cycles` counts the cycles from launch to done; `retired` the instructions
// retired, `last_retired` the index of the latest; `idle` says no instruction is queued, running
// or still to fetch; `working` that some module runs an instruction or fetch is not stalled (a
// run that stays not working and not done is deadlocked). `error` rises, and the machine stops
// making progress, at the first instruction no module can run (`error_decode`), or whose buffer
// index `error_index` is past buffer `error_buffer` (vdla_pkg's BUF_*), or, `error_buffer` being
// BUF_DRAM, a LOAD or STORE whose last DRAM entry `error_index` (its low 32 bits) ends past
// dram_bytes (checked after its buffer range, before it moves anything); `error_insn` names it.
module vdla_top #(
    parameter int BATCH = 1,
    parameter int BLOCK_IN = 16,
    parameter int BLOCK_OUT = 16,
    parameter int INP_DEPTH = 2048,
    parameter int WGT_DEPTH = 1024,
    parameter int ACC_DEPTH = 2048,
    parameter int UOP_DEPTH = 8192,
    parameter int CMD_DEPTH = 512,
    parameter int TOKEN_DEPTH = 512
) (
    input logic clk,
    input logic rst,
    input logic launch,
    input logic [31:0] insn_addr,
    input logic [31:0] insn_count,
    input logic [31:0] dram_bytes,
    output logic done,
    output logic [63:0] cycles,
    output logic [31:0] retired,
    output logic [31:0] last_retired,
    output logic [63:0] gemm_steps,
    output logic idle,
    output logic working,
    output logic error,
    output logic error_decode,
    output logic [2:0] error_buffer,
    output logic [31:0] error_index,
    output logic [31:0] error_insn,
    output logic mem_req_valid,
    input logic mem_req_ready,
    output logic mem_req_write,
    output logic [31:0] mem_req_addr,
    output logic [127:0] mem_req_wdata,
    input logic mem_resp_valid,
    input logic [127:0] mem_resp_data
);
  localparam int INP_BITS = BATCH * BLOCK_IN * 8;
  localparam int WGT_BITS = BLOCK_OUT * BLOCK_IN * 8;
  localparam int OUT_BITS = BATCH * BLOCK_OUT * 8;

  // --- The DRAM port.
  logic [3:0] req_valid, req_write, req_grant, resp_valid;
  logic [31:0] req_addr[4];
  logic [127:0] req_wdata[4];
  logic [127:0] resp_data;
  vdla_arbiter arbiter (
      .clk(clk),
      .rst(rst),
      .req_valid(req_valid),
      .req_write(req_write),
      .req_addr(req_addr),
      .req_wdata(req_wdata),
      .req_grant(req_grant),
      .resp_valid(resp_valid),
      .resp_data(resp_data),
      .mem_req_valid(mem_req_valid),
      .mem_req_ready(mem_req_ready),
      .mem_req_write(mem_req_write),
      .mem_req_addr(mem_req_addr),
      .mem_req_wdata(mem_req_wdata),
      .mem_resp_valid(mem_resp_valid),
      .mem_resp_data(mem_resp_data)
  );
  assign req_write = 4'b1000;
  assign req_wdata[0] = '0;
  assign req_wdata[1] = '0;
  assign req_wdata[2] = '0;

  // --- Fetch and the command queues (0 load, 1 compute, 2 store).
  logic [2:0] q_push, q_pop, q_empty, q_full;
  logic [159:0] q_data, q_head[3];
  logic fetching, fetch_working;
  // Errors: 0 fetch (decode), 1 load, 2 compute, 3 store.
  logic [3:0] err;
  logic [2:0] err_buffer[4];
  logic [31:0] err_index[4], err_insn[4];
  assign err_buffer[0] = '0;
  assign err_index[0] = '0;

  // DRAM's size, as the last launch gave it.
  logic [31:0] dram_size;
  always_ff @(posedge clk) begin
    if (rst) dram_size <= '0;
    else if (launch) dram_size <= dram_bytes;
  end
  vdla_fetch fetch (
      .clk(clk),
      .rst(rst),
      .launch(launch),
      .insn_addr(insn_addr),
      .insn_count(insn_count),
      .req_valid(req_valid[0]),
      .req_addr(req_addr[0]),
      .req_grant(req_grant[0]),
      .resp_valid(resp_valid[0]),
      .resp_data(resp_data),
      .q_push(q_push),
      .q_data(q_data),
      .q_full(q_full),
      .fetching(fetching),
      .working(fetch_working),
      .err(err[0]),
      .err_insn(err_insn[0])
  );
  for (genvar q = 0; q < 3; q++) begin : queues
    vdla_fifo #(
        .WIDTH(160),
        .DEPTH(CMD_DEPTH)
    ) fifo (
        .clk(clk),
        .rst(rst),
        .push(q_push[q]),
        .push_data(q_data),
        .pop(q_pop[q]),
        .head(q_head[q]),
        .empty(q_empty[q]),
        .full(q_full[q])
    );
  end

  // --- Dependency tokens: load->compute, compute->load, compute->store, store->compute.
  localparam int TW = $clog2(TOKEN_DEPTH) + 1;
  logic [TW-1:0] l2c, c2l, c2s, s2c;
  logic l2c_push, l2c_pop, c2l_push, c2l_pop, c2s_push, c2s_pop, s2c_push, s2c_pop;
  always_ff @(posedge clk) begin
    if (rst || launch) begin
      {l2c, c2l, c2s, s2c} <= '0;
    end else begin
      l2c <= l2c + TW'(l2c_push) - TW'(l2c_pop);
      c2l <= c2l + TW'(c2l_push) - TW'(c2l_pop);
      c2s <= c2s + TW'(c2s_push) - TW'(c2s_pop);
      s2c <= s2c + TW'(s2c_push) - TW'(s2c_pop);
    end
  end

  // --- Buffers the modules share: reads registered (a cycle's latency), writes by beat or entry.
  logic [INP_BITS-1:0] inp_mem[INP_DEPTH];
  logic [WGT_BITS-1:0] wgt_mem[WGT_DEPTH];
  logic [OUT_BITS-1:0] out_mem[ACC_DEPTH];
  logic inp_wr_en, wgt_wr_en, out_wr_en;
  logic [15:0] load_wr_entry, inp_rd_entry, wgt_rd_entry, out_wr_entry, out_rd_entry;
  logic [7:0] load_wr_beat;
  logic [127:0] load_wr_data;
  logic [INP_BITS-1:0] inp_rd_data;
  logic [WGT_BITS-1:0] wgt_rd_data;
  logic [OUT_BITS-1:0] out_wr_data, out_rd_data;
  always_ff @(posedge clk) begin
    if (inp_wr_en) inp_mem[load_wr_entry][load_wr_beat*128+:128] <= load_wr_data;
    if (wgt_wr_en) wgt_mem[load_wr_entry][load_wr_beat*128+:128] <= load_wr_data;
    if (out_wr_en) out_mem[out_wr_entry] <= out_wr_data;
    inp_rd_data <= inp_mem[inp_rd_entry];
    wgt_rd_data <= wgt_mem[wgt_rd_entry];
    out_rd_data <= out_mem[out_rd_entry];
  end

  // --- The modules.
  logic [2:0] retire, busy;
  logic [31:0] retire_index[3];
  logic finish, gemm_step;
  vdla_load #(
      .INP_SHIFT($clog2(INP_BITS / 8)),
      .WGT_SHIFT($clog2(WGT_BITS / 8)),
      .INP_BEATS(INP_BITS / 128),
      .WGT_BEATS(WGT_BITS / 128),
      .INP_DEPTH(INP_DEPTH),
      .WGT_DEPTH(WGT_DEPTH)
  ) load (
      .clk(clk),
      .rst(rst),
      .dram_bytes(dram_size),
      .q_head(q_head[0]),
      .q_empty(q_empty[0]),
      .q_pop(q_pop[0]),
      .have_pop_next(c2l != 0),
      .room_push_next(l2c < TW'(TOKEN_DEPTH)),
      .tok_pop(c2l_pop),
      .tok_push(l2c_push),
      .retire(retire[0]),
      .retire_index(retire_index[0]),
      .req_valid(req_valid[1]),
      .req_addr(req_addr[1]),
      .req_grant(req_grant[1]),
      .resp_valid(resp_valid[1]),
      .resp_data(resp_data),
      .inp_wr_en(inp_wr_en),
      .wgt_wr_en(wgt_wr_en),
      .wr_entry(load_wr_entry),
      .wr_beat(load_wr_beat),
      .wr_data(load_wr_data),
      .busy(busy[0]),
      .err(err[1]),
      .err_buffer(err_buffer[1]),
      .err_index(err_index[1]),
      .err_insn(err_insn[1])
  );
  vdla_compute #(
      .BATCH(BATCH),
      .BLOCK_IN(BLOCK_IN),
      .BLOCK_OUT(BLOCK_OUT),
      .INP_DEPTH(INP_DEPTH),
      .WGT_DEPTH(WGT_DEPTH),
      .ACC_DEPTH(ACC_DEPTH),
      .UOP_DEPTH(UOP_DEPTH)
  ) compute (
      .clk(clk),
      .rst(rst),
      .dram_bytes(dram_size),
      .q_head(q_head[1]),
      .q_empty(q_empty[1]),
      .q_pop(q_pop[1]),
      .have_pop_prev(l2c != 0),
      .have_pop_next(s2c != 0),
      .room_push_prev(c2l < TW'(TOKEN_DEPTH)),
      .room_push_next(c2s < TW'(TOKEN_DEPTH)),
      .tok_pop_prev(l2c_pop),
      .tok_pop_next(s2c_pop),
      .tok_push_prev(c2l_push),
      .tok_push_next(c2s_push),
      .retire(retire[1]),
      .retire_index(retire_index[1]),
      .finish(finish),
      .req_valid(req_valid[2]),
      .req_addr(req_addr[2]),
      .req_grant(req_grant[2]),
      .resp_valid(resp_valid[2]),
      .resp_data(resp_data),
      .inp_rd_entry(inp_rd_entry),
      .inp_rd_data(inp_rd_data),
      .wgt_rd_entry(wgt_rd_entry),
      .wgt_rd_data(wgt_rd_data),
      .out_wr_en(out_wr_en),
      .out_wr_entry(out_wr_entry),
      .out_wr_data(out_wr_data),
      .busy(busy[1]),
      .gemm_step(gemm_step),
      .err(err[2]),
      .err_buffer(err_buffer[2]),
      .err_index(err_index[2]),
      .err_insn(err_insn[2])
  );
  vdla_store #(
      .OUT_SHIFT($clog2(OUT_BITS / 8)),
      .OUT_BEATS(OUT_BITS / 128),
      .OUT_DEPTH(ACC_DEPTH)
  ) store (
      .clk(clk),
      .rst(rst),
      .dram_bytes(dram_size),
      .q_head(q_head[2]),
      .q_empty(q_empty[2]),
      .q_pop(q_pop[2]),
      .have_pop_prev(c2s != 0),
      .room_push_prev(s2c < TW'(TOKEN_DEPTH)),
      .tok_pop(c2s_pop),
      .tok_push(s2c_push),
      .retire(retire[2]),
      .retire_index(retire_index[2]),
      .out_rd_entry(out_rd_entry),
      .out_rd_data(out_rd_data),
      .req_valid(req_valid[3]),
      .req_addr(req_addr[3]),
      .req_wdata(req_wdata[3]),
      .req_grant(req_grant[3]),
      .busy(busy[2]),
      .err(err[3]),
      .err_buffer(err_buffer[3]),
      .err_index(err_index[3]),
      .err_insn(err_insn[3])
  );

  // --- The register interface.
  logic running;
  assign idle = !fetching && q_empty == 3'b111 && busy == 3'b000;
  assign working = fetch_working || busy != 3'b000;
  always_ff @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      done <= 1'b0;
      cycles <= '0;
      retired <= '0;
      last_retired <= '0;
      gemm_steps <= '0;
      error <= 1'b0;
    end else if (launch) begin
      running <= 1'b1;
      done <= 1'b0;
      error <= 1'b0;
      cycles <= '0;
      retired <= '0;
      gemm_steps <= '0;
    end else begin
      if (running) cycles <= cycles + 1;
      if (gemm_step) gemm_steps <= gemm_steps + 1;
      retired <= retired + 32'(retire[0]) + 32'(retire[1]) + 32'(retire[2]);
      for (int m = 0; m < 3; m++) if (retire[m]) last_retired <= retire_index[m];
      if (finish) begin
        running <= 1'b0;
        done <= 1'b1;
      end
      // The first error; of several at once, the earliest instruction's.
      if (!error && err != 4'b0) begin
        logic [1:0] pick;
        pick = 2'd0;
        for (int m = 3; m >= 0; m--) begin
          if (err[m] && (!err[pick] || err_insn[m] <= err_insn[pick])) pick = 2'(m);
        end
        error <= 1'b1;
        running <= 1'b0;
        error_decode <= pick == 2'd0;
        error_buffer <= err_buffer[pick];
        error_index <= err_index[pick];
        error_insn <= err_insn[pick];
      end
    end
  end
endmodule
