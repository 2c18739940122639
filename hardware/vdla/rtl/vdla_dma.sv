// A LOAD's 2-D tile from DRAM into a buffer (isa.h, MemInsn): first the padding entries are
// written with zeros, one beat (16 bytes) a cycle; then the y_size x x_size entries are read,
// one beat requested per granted cycle and written as the responses arrive, in request order.
// An entry is 1 << entry_shift bytes in DRAM and `beats` beats in the buffer (micro-ops: 4 bytes,
// one beat of which the buffer keeps the low 32 bits).
module vdla_dma
  import vdla_pkg::*;
(
    input logic clk,
    input logic rst,
    input logic start,
    input insn_t insn,  // the LOAD, read at start
    input logic [3:0] entry_shift,
    input logic [8:0] beats,
    output logic busy,
    output logic done,
    output logic req_valid,
    output logic [31:0] req_addr,
    input logic req_grant,
    input logic resp_valid,
    input logic [127:0] resp_data,
    output logic wr_en,
    output logic [15:0] wr_entry,
    output logic [7:0] wr_beat,
    output logic [127:0] wr_data
);
  typedef enum logic [1:0] {
    IDLE,
    ZERO,
    DATA
  } state_t;
  state_t state;

  // The instruction, held while it runs.
  logic [15:0] base, ys, xs, stride;
  logic [31:0] dbase;
  logic [3:0] yp0, xp0, shift;
  logic [16:0] rows, cols;
  logic [8:0] nbeats;

  // Zero phase: position (zy, zx), beat zb. Data phase: requests (qy, qx, qb), responses (ry, rx,
  // rb), and the beats still to come back.
  logic [16:0] zy, zx, qy, qx, ry, rx;
  logic [8:0] zb, qb, rb;
  logic [31:0] pending;
  logic requests_left;

  wire [16:0] start_rows = 17'(y_pad_0(insn)) + 17'(y_size(insn)) + 17'(y_pad_1(insn));
  wire [16:0] start_cols = 17'(x_pad_0(insn)) + 17'(x_size(insn)) + 17'(x_pad_1(insn));
  wire zero_pad = zy < 17'(yp0) || zy >= 17'(yp0) + 17'(ys) || zx < 17'(xp0) ||
                  zx >= 17'(xp0) + 17'(xs);

  assign busy = state != IDLE;
  assign req_valid = state == DATA && requests_left;
  assign req_addr = ((dbase + 32'(qy) * 32'(stride) + 32'(qx)) << shift) + (32'(qb) << 4);

  always_comb begin
    wr_en = 1'b0;
    wr_entry = '0;
    wr_beat = '0;
    wr_data = resp_data;
    if (state == ZERO && zero_pad) begin
      wr_en = 1'b1;
      wr_entry = 16'(32'(base) + 32'(zy) * 32'(cols) + 32'(zx));
      wr_beat = 8'(zb);
      wr_data = '0;
    end else if (state == DATA && resp_valid) begin
      wr_en = 1'b1;
      wr_entry = 16'(32'(base) + (32'(ry) + 32'(yp0)) * 32'(cols) + 32'(rx) + 32'(xp0));
      wr_beat = 8'(rb);
    end
  end

  always_ff @(posedge clk) begin
    done <= 1'b0;
    if (rst) begin
      state <= IDLE;
    end else begin
      case (state)
        IDLE:
        if (start) begin
          base <= sram_base(insn);
          dbase <= dram_base(insn);
          ys <= y_size(insn);
          xs <= x_size(insn);
          stride <= x_stride(insn);
          yp0 <= y_pad_0(insn);
          xp0 <= x_pad_0(insn);
          shift <= entry_shift;
          nbeats <= beats;
          rows <= start_rows;
          cols <= start_cols;
          {zy, zx, zb, qy, qx, qb, ry, rx, rb} <= '0;
          pending <= 32'(y_size(insn)) * 32'(x_size(insn)) * 32'(beats);
          requests_left <= y_size(insn) != 0 && x_size(insn) != 0;
          // Padding to write only around a tile of at least one row and one column.
          state <= ((y_pad_0(insn) | y_pad_1(insn) | x_pad_0(insn) | x_pad_1(insn)) != 0 &&
                    start_rows != 0 && start_cols != 0) ? ZERO : DATA;
        end
        ZERO: begin
          // One beat of a padding entry, or past an entry the data phase fills, per cycle.
          if (zero_pad && zb + 1 < nbeats) begin
            zb <= zb + 1'b1;
          end else begin
            zb <= '0;
            if (zx + 1 < cols) begin
              zx <= zx + 1'b1;
            end else begin
              zx <= '0;
              if (zy + 1 < rows) zy <= zy + 1'b1;
              else state <= DATA;
            end
          end
        end
        DATA: begin
          if (req_valid && req_grant) begin
            if (qb + 1 < nbeats) begin
              qb <= qb + 1'b1;
            end else begin
              qb <= '0;
              if (qx + 1 < 17'(xs)) begin
                qx <= qx + 1'b1;
              end else begin
                qx <= '0;
                if (qy + 1 < 17'(ys)) qy <= qy + 1'b1;
                else requests_left <= 1'b0;
              end
            end
          end
          if (resp_valid) begin
            pending <= pending - 1;
            if (rb + 1 < nbeats) begin
              rb <= rb + 1'b1;
            end else begin
              rb <= '0;
              if (rx + 1 < 17'(xs)) begin
                rx <= rx + 1'b1;
              end else begin
                rx <= '0;
                ry <= ry + 1'b1;
              end
            end
          end
          if (pending == 0 || (resp_valid && pending == 1)) begin
            state <= IDLE;
            done <= 1'b1;
          end
        end
        default: state <= IDLE;
      endcase
    end
  end
endmodule
