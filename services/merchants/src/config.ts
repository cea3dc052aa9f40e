import { port, serviceBase } from "@payin/config";

export const configSchema = { ...serviceBase, MERCHANTS_PORT: port(50052) };
